import type { PoolClient } from 'pg';
import type { Projection, ProjectionReport } from '../projection';
import type { SourcedEvent } from '../event-log/event-log.projection';
import { identityChanges, type IdentityChangeSet } from './identity-changes';
import { applyIdentityChanges } from './identity.sql';

/** Users, roles, groups, project memberships, favourites and the project states identity needs. */
export class IdentityProjection implements Projection {
  readonly name = 'identity';

  async apply(client: PoolClient, events: SourcedEvent[], report: ProjectionReport): Promise<void> {
    const sets: IdentityChangeSet[] = [];
    for (const s of events) {
      const mapped = identityChanges(s.event);
      if (mapped === null) continue;
      if ('skip' in mapped) report.skipped(s.event.id, mapped.skip);
      else sets.push(mapped.ok);
    }
    await applyIdentityChanges(client, sets);
  }
}
