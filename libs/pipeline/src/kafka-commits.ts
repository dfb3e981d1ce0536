/**
 * Kafka's copy of each partition's position, for external lag tools only (Postgres holds the position a consumer
 * starts from): committed off the batches' path, without holding a partition's next batch nor a transaction
 * for a broker round trip. One commit in flight per partition; the positions of batches that commit meanwhile
 * are coalesced into the latest, committed after it.
 */
export class KafkaCommits {
  private readonly pending = new Map<number, { running: Promise<void>; next?: number }>();

  /** `commit` writes one position to Kafka and never rejects (it reports its own failures). */
  constructor(private readonly commit: (partition: number, offset: number) => Promise<void>) {}

  /** Commits `offset` for `partition` now, or after the commit in flight (only the latest waiting one). */
  add(partition: number, offset: number): void {
    const pending = this.pending.get(partition);
    if (pending) {
      pending.next = offset;
      return;
    }
    const state: { running: Promise<void>; next?: number } = { running: Promise.resolve() };
    this.pending.set(partition, state);
    state.running = (async () => {
      for (let o: number | undefined = offset; o !== undefined; o = state.next) {
        state.next = undefined;
        await this.commit(partition, o).catch(() => undefined);
      }
      this.pending.delete(partition);
    })();
  }

  /** Resolves once every commit in flight or waiting is done. */
  async settled(): Promise<void> {
    await Promise.all([...this.pending.values()].map((p) => p.running));
  }
}
