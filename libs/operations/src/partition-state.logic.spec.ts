import { DEFAULT_STALL_SECONDS, lagOf, operationsPartitions, stallState } from './partition-state.logic';

describe('the stall rule', () => {
  it('lag is the high-water mark minus the stored next offset, from 0 when nothing is stored, never negative', () => {
    expect(lagOf(10, 7)).toBe(3);
    expect(lagOf(5, null)).toBe(5);
    expect(lagOf(0, null)).toBe(0);
    expect(lagOf(100, 120)).toBe(0); // a mark fetched before the batch committed
    expect(lagOf(null, 7)).toBeNull();
  });

  it('caught up, behind (moving), stalled (still for the stall time, or never moved), unknown', () => {
    expect(stallState(0, null, 60)).toBe('caught-up');
    expect(stallState(0, 3600, 60)).toBe('caught-up');
    expect(stallState(5, 30, 60)).toBe('behind');
    expect(stallState(5, 59.9, 60)).toBe('behind');
    expect(stallState(5, 60, 60)).toBe('stalled');
    expect(stallState(5, null, 60)).toBe('stalled');
    expect(stallState(null, null, 60)).toBe('unknown');
    expect(stallState(null, 3600, 60)).toBe('unknown');
    expect(DEFAULT_STALL_SECONDS).toBe(60);
  });
});

describe('operationsPartitions (the Operations page)', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  const stored = (
    partition: number,
    nextOffset: number,
    updatedAt: string | null,
    lastEventAt: string | null,
  ) => ({
    partition,
    nextOffset,
    updatedAt,
    lastEventAt,
  });

  it('each partition of the marks: lag, lag in seconds while behind, state by the stall rule', () => {
    const rows = operationsPartitions(
      [
        { partition: 0, high: 10 },
        { partition: 1, high: 10 },
        { partition: 2, high: 10 },
        { partition: 3, high: 4 },
        { partition: 4, high: 0 },
      ],
      [
        stored(0, 10, '2026-11-23T11:00:00Z', '2026-11-23T10:00:00Z'),
        stored(1, 7, '2026-11-23T11:59:30Z', '2026-11-23T11:59:00.04Z'),
        stored(2, 7, '2026-11-23T11:59:00Z', null),
      ],
      now,
      60,
    );
    expect(
      rows.map((r) => [r.partition, r.storedOffset, r.highWatermark, r.lag, r.lagSeconds, r.status]),
    ).toEqual([
      [0, 10, 10, 0, 0, 'caught-up'],
      [1, 7, 10, 3, 60, 'behind'],
      [2, 7, 10, 3, null, 'stalled'],
      [3, null, 4, 4, null, 'stalled'], // nothing stored: never consumed
      [4, null, 0, 0, 0, 'caught-up'],
    ]);
    expect(rows[1]).toMatchObject({
      lastEventAt: '2026-11-23T11:59:00.04Z',
      updatedAt: '2026-11-23T11:59:30Z',
    });
  });

  it('without the broker: the partitions stored, in order, lag unknown', () => {
    const rows = operationsPartitions(
      null,
      [stored(2, 5, '2026-11-23T11:00:00Z', null), stored(0, 3, null, null)],
      now,
      60,
    );
    expect(
      rows.map((r) => [r.partition, r.storedOffset, r.highWatermark, r.lag, r.lagSeconds, r.status]),
    ).toEqual([
      [0, 3, null, null, null, 'unknown'],
      [2, 5, null, null, null, 'unknown'],
    ]);
  });

  it('the stall time is whole: a partition still for exactly the stall time is stalled', () => {
    const at = (updatedAt: string) =>
      operationsPartitions([{ partition: 0, high: 2 }], [stored(0, 1, updatedAt, null)], now, 60)[0].status;
    expect(at('2026-11-23T11:59:00.001Z')).toBe('behind');
    expect(at('2026-11-23T11:59:00.000Z')).toBe('stalled');
  });
});
