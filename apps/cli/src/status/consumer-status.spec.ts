import { partitionStatus, statusProblems, type PartitionStatus } from './consumer-status';

describe('partitionStatus', () => {
  it('is the high-water mark minus the stored offset, from 0 when nothing is stored', () => {
    const s = partitionStatus(
      [
        { partition: 0, low: 0, high: 10 },
        { partition: 1, low: 0, high: 5 },
        { partition: 2, low: 0, high: 0 },
      ],
      [{ partition: 0, nextOffset: 7, lastEventAt: '2026-11-22T10:00:00.000Z', updatedAt: null }],
    );
    expect(s.map((p) => [p.partition, p.storedOffset, p.lag])).toEqual([
      [0, 7, 3],
      [1, null, 5],
      [2, null, 0],
    ]);
    expect(s[0].lastEventAt).toBe('2026-11-22T10:00:00.000Z');
  });
});

describe('statusProblems (status as a check)', () => {
  const part = (partition: number, lag: number, idleSeconds: number | null): PartitionStatus => ({
    partition,
    storedOffset: idleSeconds === null ? null : 10,
    highWatermark: 10 + lag,
    lag,
    lastEventAt: null,
    updatedAt: null,
    idleSeconds,
  });

  it('is healthy with members and every partition caught up or moving', () => {
    expect(statusProblems([part(0, 0, 9999), part(1, 0, null), part(2, 5, 3)], 1, 120)).toEqual([]);
  });

  it('fails on an empty consumer group', () => {
    expect(statusProblems([part(0, 0, 1)], 0)).toEqual([
      'the consumer group has no members: no projector is consuming',
    ]);
  });

  it('fails on a partition behind whose position has not moved for the threshold, or never moved', () => {
    expect(statusProblems([part(0, 3, 120), part(1, 2, 119.5), part(2, 7, null)], 2, 120)).toEqual([
      'partition 0 is stalled: 3 message(s) behind, no progress for 120 s',
      'partition 2 is stalled: 7 message(s) behind, never consumed',
    ]);
  });

  it('does not count a partition that moved on the second look (a message after a long quiet time)', () => {
    expect(statusProblems([part(0, 1, 3600), part(1, 1, 3600)], 1, 120, new Set([0]))).toEqual([
      'partition 1 is stalled: 1 message(s) behind, no progress for 3600 s',
    ]);
  });
});
