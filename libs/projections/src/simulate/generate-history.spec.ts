import { parseEvent } from '@flaglens/contract';
import { generateHistory } from './generate-history';

describe('simulated history', () => {
  const opts = {
    seed: 9,
    projects: 3,
    flagsPerProject: 10,
    events: 500,
    weeks: 4,
    end: '2026-11-22T00:00:00Z',
  };

  it('is deterministic from the seed, and another seed gives another history', () => {
    expect(generateHistory(opts)).toEqual(generateHistory(opts));
    expect(generateHistory({ ...opts, seed: 10 })).not.toEqual(generateHistory(opts));
  });

  it('emits valid events of the contract, ids increasing with time, within the weeks asked', () => {
    const events = generateHistory(opts);
    expect(events.length).toBeGreaterThanOrEqual(500);
    for (const e of events) expect(parseEvent(JSON.stringify(e))).toMatchObject({ ok: true });
    for (let i = 1; i < events.length; i++) {
      expect(events[i].id).toBe(events[i - 1].id + 1);
      expect(events[i].createdAt >= events[i - 1].createdAt).toBe(true);
    }
    expect(events[0].createdAt >= '2026-10-25T00:00:00.000Z').toBe(true);
  });
});
