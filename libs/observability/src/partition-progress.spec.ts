import { PartitionProgress } from './partition-progress';

describe('PartitionProgress', () => {
  const t0 = Date.parse('2026-11-22T10:00:00Z');

  it('lag is the high-water mark minus the stored next offset, never negative', () => {
    const p = new PartitionProgress();
    p.observeHigh(0, 100, t0);
    expect(p.lag(0)).toBe(100); // nothing stored yet: from offset 0
    p.observeStored(0, 40, null, t0);
    expect(p.lag(0)).toBe(60);
    p.observeStored(0, 100, null, t0);
    expect(p.lag(0)).toBe(0);
    p.observeStored(0, 120, null, t0); // the watermark fetched before the batch committed
    expect(p.lag(0)).toBe(0);
    expect(p.lag(1)).toBeNull();
  });

  it('keeps the highest position seen (a slow refresh does not move it back)', () => {
    const p = new PartitionProgress();
    p.observeHigh(0, 10, t0);
    p.observeStored(0, 8, null, t0);
    p.observeStored(0, 5, null, t0);
    expect(p.lag(0)).toBe(2);
  });

  it('behind but moving is not stalled; behind and still for the stall time is', () => {
    const p = new PartitionProgress();
    p.observeHigh(0, 1000, t0);
    p.observeStored(0, 0, null, t0);
    p.observeStored(0, 400, null, t0 + 50_000);
    p.observeHigh(0, 2000, t0 + 100_000);
    p.observeStored(0, 900, null, t0 + 100_000);
    expect(p.stalled([0], 60, t0 + 150_000)).toEqual([]);
    const stuck = p.stalled([0], 60, t0 + 161_000);
    expect(stuck).toHaveLength(1);
    expect(stuck[0]).toMatchObject({ partition: 0, lag: 1100, stillSeconds: 61 });
  });

  it('a caught-up partition is never stalled, and idle time before new events does not count', () => {
    const p = new PartitionProgress();
    p.observeHigh(0, 10, t0);
    p.observeStored(0, 10, null, t0);
    expect(p.stalled([0], 60, t0 + 3_600_000)).toEqual([]);
    p.observeHigh(0, 20, t0 + 3_600_000); // new events after an hour of quiet
    expect(p.stalled([0], 60, t0 + 3_610_000)).toEqual([]);
    expect(p.stalled([0], 60, t0 + 3_661_000)).toHaveLength(1);
  });

  it('time lag is now − last applied event while behind, 0 when caught up', () => {
    const p = new PartitionProgress();
    p.observeHigh(0, 10, t0);
    p.observeStored(0, 5, '2026-11-22T09:59:00Z', t0);
    expect(p.timeLagSeconds(0, t0)).toBe(60);
    p.observeStored(0, 10, '2026-11-22T09:59:30Z', t0);
    expect(p.timeLagSeconds(0, t0)).toBe(0);
    expect(p.report(0, t0).lastEventAt).toBe('2026-11-22T09:59:30.000Z');
  });
});
