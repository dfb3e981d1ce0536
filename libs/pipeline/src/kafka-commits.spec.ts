import { KafkaCommits } from './kafka-commits';

/** A broker's commit that answers when told: records each position committed, per partition. */
class HeldCommits {
  readonly committed: [number, number][] = [];
  private readonly held: (() => void)[] = [];
  commit = (partition: number, offset: number): Promise<void> =>
    new Promise((resolve) =>
      this.held.push(() => {
        this.committed.push([partition, offset]);
        resolve();
      }),
    );
  /** Answers every commit waiting so far. */
  async answer(): Promise<void> {
    for (const done of this.held.splice(0)) done();
    await new Promise((r) => setImmediate(r));
  }
}

describe('KafkaCommits', () => {
  it('keeps one commit in flight per partition and coalesces the positions that come meanwhile', async () => {
    const broker = new HeldCommits();
    const commits = new KafkaCommits(broker.commit);
    commits.add(0, 10);
    commits.add(1, 4); // another partition: its own commit, at once
    commits.add(0, 20);
    commits.add(0, 30); // 20 is never committed: 30 is the latest when 10's commit ends
    await broker.answer();
    expect(broker.committed).toEqual([
      [0, 10],
      [1, 4],
    ]);
    await broker.answer();
    expect(broker.committed).toEqual([
      [0, 10],
      [1, 4],
      [0, 30],
    ]);
    const settled = commits.settled();
    await broker.answer();
    await settled;
    commits.add(0, 31); // nothing in flight: committed at once again
    await broker.answer();
    expect(broker.committed.at(-1)).toEqual([0, 31]);
  });

  it('goes on after a commit that fails', async () => {
    const committed: number[] = [];
    let first = true;
    const commits = new KafkaCommits(async (_p, offset) => {
      if (first) {
        first = false;
        throw new Error('broker gone');
      }
      committed.push(offset);
    });
    commits.add(0, 1);
    commits.add(0, 2);
    await commits.settled();
    expect(committed).toEqual([2]);
  });
});
