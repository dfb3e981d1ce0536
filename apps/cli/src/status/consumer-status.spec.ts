import { partitionStatus } from './consumer-status';

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
