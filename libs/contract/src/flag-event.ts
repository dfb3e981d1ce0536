/** A tag on an accepted event. Extra keys the producer sent (e.g. the reference's `color`) are kept. */
export interface EventTag {
  value: string;
  type: string;
}

/**
 * An accepted event, as `parseEvent` returns it: every field of api-spec 2.1 present, nullable ones
 * null when the producer left them out, `createdAt` normalised. Its keys are in the order of the
 * reference API's wire shape (`id, type, createdBy, createdAt, createdByUserId, data, preData, tags,
 * featureName, project, environment`, then `groupType, groupId` when set), so `JSON.stringify(event)`
 * matches the reference's event list.
 */
export interface FlagEvent {
  id: number;
  /** Normalised: `new Date(x).toISOString()`: UTC, millisecond precision, `Z`. */
  createdAt: string;
  type: string;
  createdBy: string;
  createdByUserId: number | null;
  environment: string | null;
  project: string | null;
  featureName: string | null;
  /** As parsed, untouched. */
  data: Record<string, unknown> | null;
  /** As parsed, untouched. */
  preData: Record<string, unknown> | null;
  /** As parsed (tag objects untouched, including extra keys). */
  tags: EventTag[] | null;
  /**
   * Unleash 7+: the kind of transaction that wrote the event with others (`transaction`, `change-request`,
   * ...). Absent (not null) when the producer left it out or sent null, as the reference omits it.
   */
  groupType?: string;
  /** Unleash 7+: the id of that transaction (a ULID, a change request's id). Absent when not set. */
  groupId?: string;
}
