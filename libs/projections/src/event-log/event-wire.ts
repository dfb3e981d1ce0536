import { toFlagEvent, type FlagEvent } from '@flaglens/contract';

/**
 * The event as the reference's event list serialises it: this key order, `createdAt` with milliseconds
 * and `Z`, `tags` defaulting to `[]` (semantics §1). Pure; the result is stored once per event.
 */
export function toWireJson(e: FlagEvent): string {
  return JSON.stringify({
    id: e.id,
    type: e.type,
    createdBy: e.createdBy,
    createdAt: e.createdAt,
    createdByUserId: e.createdByUserId,
    data: e.data,
    preData: e.preData,
    tags: e.tags ?? [],
    featureName: e.featureName,
    project: e.project,
    environment: e.environment,
  });
}

/**
 * The wire JSON of a stored event body: the message value as the projector received it (already validated
 * then), or, for rows stored before bodies were kept raw, the wire JSON itself (rendering it is idempotent).
 */
export function wireFromStored(body: string): string {
  return toWireJson(toFlagEvent(JSON.parse(body) as Record<string, unknown>));
}
