import { IdentityProjection } from './identity/identity.projection';
import type { Projection } from './projection';

/**
 * Every projection the projector applies after the event log, in this order, in each batch's transaction.
 * Add a projection here (and its migration to migrations/index.ts).
 */
export function allProjections(): Projection[] {
  return [new IdentityProjection()];
}
