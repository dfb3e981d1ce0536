/**
 * Where a fetched batch lies against its partition's stored position (Postgres's, not Kafka's), and so what
 * the consumer does with it. Pure.
 */
export type Placement<M> =
  /** every message is below the stored position (already applied): skip them, seeking ahead when told */
  | { kind: 'stored'; last: number; seekTo?: number }
  /** the fetch began past the stored position: seek back to it, once */
  | { kind: 'seek-back'; offset: number }
  /** apply `fresh` (the messages from the stored position on); the position then moves to `nextOffset` */
  | { kind: 'apply'; fresh: M[]; first: number; last: number; nextOffset: number };

/**
 * `messages` (in offset order, at least one), `stored` the partition's stored next offset, `soughtBackTo` where
 * the consumer last sought this partition back to. A fetch that starts past the stored position (Kafka's
 * committed offset ahead of Postgres's) is sought back once; if the broker again starts later, those offsets
 * no longer exist and the gap is accepted.
 */
export function placeFetched<M extends { offset: string }>(
  messages: readonly M[],
  stored: number,
  soughtBackTo: number | undefined,
): Placement<M> {
  const last = Number(messages[messages.length - 1].offset);
  const fresh = messages.filter((m) => Number(m.offset) >= stored);
  // already applied (e.g. Kafka's committed offset lagged Postgres after a crash)
  if (fresh.length === 0) return { kind: 'stored', last, seekTo: stored > last + 1 ? stored : undefined };
  const first = Number(fresh[0].offset);
  if (first > stored && soughtBackTo !== stored) return { kind: 'seek-back', offset: stored };
  return { kind: 'apply', fresh, first, last, nextOffset: last + 1 };
}
