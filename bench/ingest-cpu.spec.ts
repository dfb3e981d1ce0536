import { ingestCpu, metricSum, stageCounter, type CpuSample } from './ingest-cpu';
import { machineCpuSeconds } from './proc';

const sample = (s: Partial<CpuSample>): CpuSample => ({
  applied: 0,
  at: 0,
  projector: 0,
  projectorMain: 0,
  postgresAll: 0,
  backends: new Map(),
  ...s,
});

describe('the ingest CPU per event', () => {
  it("splits the projector's CPU between its main thread and the rest, and gives their shares", () => {
    const before = sample({
      applied: 1_000,
      at: 10_000,
      projector: 5,
      projectorMain: 4,
      postgresAll: 7,
      backends: new Map([[20, 1]]),
      machine: { busy: 100, total: 200 },
    });
    const after = sample({
      applied: 101_000,
      at: 12_000, // 2 s later
      projector: 7.5, // 2.5 s of CPU: 1.5 s on the main thread, 1 s on the others
      projectorMain: 5.5,
      postgresAll: 9,
      backends: new Map([
        [20, 2.6],
        [21, 0.1], // a backend that connected meanwhile counts from zero
      ]),
      machine: { busy: 103.6, total: 204 }, // 4 s of two cores, 3.6 busy
    });
    const c = ingestCpu(before, after, '', 100_000);
    expect(c.events).toBe(100_000);
    expect(c.projectorUsPerEvent).toBe(25);
    expect(c.projectorMainUsPerEvent).toBe(15);
    expect(c.projectorHelpersUsPerEvent).toBe(10);
    expect(c.mainCoreShare).toBe(0.75);
    expect(c.machineBusyShare).toBe(0.9);
    expect(c.postgresBackendsUsPerEvent).toBe(17);
    expect(c.postgresAllUsPerEvent).toBe(20);
  });

  it('leaves the busy share out when /proc/stat could not be read, and never gives helpers below zero', () => {
    const c = ingestCpu(
      sample({ applied: 0, at: 0, projector: 1, projectorMain: 1 }),
      sample({ applied: 10, at: 1_000, projector: 1.99, projectorMain: 2 }), // ticks behind schedstat
      '',
      10,
    );
    expect(c.machineBusyShare).toBeUndefined();
    expect(c.projectorHelpersUsPerEvent).toBe(0);
    expect(c.projectorMainUsPerEvent).toBe(100_000);
  });

  it('sums a stage counter over several scrapes', () => {
    const text = [
      'flaglens_projector_stage_seconds_total{stage="event-log"} 1.5',
      'flaglens_projector_stage_seconds_total{stage="classify"} 0.5',
      'flaglens_projector_stage_seconds_total{stage="event-log"} 2',
    ].join('\n');
    expect(stageCounter(text, 'flaglens_projector_stage_seconds_total')).toEqual(
      new Map([
        ['event-log', 3.5],
        ['classify', 0.5],
      ]),
    );
  });

  it('sums every sample of a metric, labelled or not, over several scrapes; 0 when there is none', () => {
    const text = [
      'flaglens_projector_batch_size_events_count 3',
      'flaglens_projector_batch_size_events_sum{app="projector"} 12000',
      'flaglens_projector_batch_size_events_count 2',
      'flaglens_projector_batch_size_events_sum{app="projector"} 8000',
      'flaglens_projector_batch_size_events_bucket{le="100"} 1',
    ].join('\n');
    expect(metricSum(text, 'flaglens_projector_batch_size_events_count')).toBe(5);
    expect(metricSum(text, 'flaglens_projector_batch_size_events_sum')).toBe(20000);
    expect(metricSum(text, 'flaglens_projector_stage_seconds_total')).toBe(0);
  });

  it("reads this machine's CPU time, busy within all", () => {
    const m = machineCpuSeconds();
    expect(m).toBeDefined();
    expect(m!.busy).toBeGreaterThan(0);
    expect(m!.total).toBeGreaterThan(m!.busy);
  });
});
