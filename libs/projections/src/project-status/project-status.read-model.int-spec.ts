import { Pool } from 'pg';
import type { FlagEvent } from '@flaglens/contract';
import { rowsVia } from '@flaglens/persistence';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { interleavedBatches, testEvent } from '@flaglens/testing/test-events';
import { appendEvents } from '../event-log/event-log.projection';
import type { SourcedEvent } from '../projection';
import { ProjectStatusReadModel } from './project-status.read-model';

const DAY = 86_400_000;
const NOW = new Date('2026-06-15T10:30:00.000Z');
const YEAR_AGO = Date.parse('2025-06-15T10:30:00.000Z');
const PROJECTS = ['alpha', 'beta', null];

/**
 * Fourteen months of events of two projects (and none), SDK traffic among them, with events on each side of the
 * year's two ends to the millisecond: the first partial day, the last, and after the clock.
 */
function history(): FlagEvent[] {
  const at: number[] = [];
  for (let t = YEAR_AGO - 60 * DAY; t < NOW.getTime() + 3 * DAY; t += 7_919_000) at.push(t);
  const edges = [
    ...[YEAR_AGO, NOW.getTime()].flatMap((edge) =>
      [-DAY, -3_600_000, -1, 0, 1, 3_600_000, DAY].map((d) => edge + d),
    ),
    ...['2025-06-15T00:00:00.000Z', '2025-06-16T00:00:00.000Z', '2026-06-15T00:00:00.000Z'].map(Date.parse),
    Date.parse('2026-06-14T23:59:59.999Z'),
  ];
  // each edge once for each project (consecutive events take the projects in turn)
  for (const t of edges) at.push(t, t, t);
  return at.map((t, k) => {
    const i = k + 1;
    const type = i % 9 === 0 ? 'client-metrics' : i % 13 === 0 ? 'client-register' : 'feature-updated';
    return testEvent(i, type, {
      createdAt: new Date(t).toISOString(),
      project: PROJECTS[i % PROJECTS.length],
      featureName: `flag-${i % 17}`,
    });
  });
}

/** Unleash's activity: the project's events (not SDK traffic) per UTC day in the year up to `now`. */
function oracle(events: FlagEvent[], project: string, now: Date): { date: string; count: number }[] {
  const perDay = new Map<string, number>();
  for (const e of events) {
    const t = Date.parse(e.createdAt);
    if (e.project !== project || e.type.startsWith('client-')) continue;
    if (t < now.getTime() - 365 * DAY || t > now.getTime()) continue;
    perDay.set(e.createdAt.slice(0, 10), (perDay.get(e.createdAt.slice(0, 10)) ?? 0) + 1);
  }
  return [...perDay].sort().map(([date, count]) => ({ date, count }));
}

describe('project status activity (real Postgres)', () => {
  let db: TestDatabase;
  let pool: Pool;
  const events = history();

  beforeAll(async () => {
    db = await createTestDatabase('project_status');
    const schema = (await db.query<{ s: string }>(`SELECT current_schema() AS s`))[0].s;
    pool = new Pool({ connectionString: db.url, max: 3, options: `-c search_path=${schema},public` });
    // stored as the projector stores them: interleaved batches, each in its own transaction
    const c = await pool.connect();
    try {
      let offset = 0;
      for (const batch of interleavedBatches(events, 7, 40)) {
        const sourced: SourcedEvent[] = batch.map((event) => ({
          event,
          knownType: true,
          topic: 't',
          partition: 0,
          offset: offset++,
        }));
        await c.query('BEGIN');
        await appendEvents(c, sourced);
        await c.query('COMMIT');
      }
    } finally {
      c.release();
    }
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('answers from the day counts what counting the log answers, to the millisecond at both ends', async () => {
    const reads = rowsVia({ pool: () => pool });
    for (const now of [NOW, new Date('2026-06-15T00:00:00.000Z'), new Date('2026-06-14T23:59:59.999Z')])
      for (const project of ['alpha', 'beta', 'gamma']) {
        const want = oracle(events, project, now);
        const counted = await new ProjectStatusReadModel(reads, 'counted').status(project, now);
        const logged = await new ProjectStatusReadModel(reads, 'log').status(project, now);
        expect(logged.activityCountByDate).toEqual(want);
        expect(counted.activityCountByDate).toEqual(want);
      }
    // the edges are exercised: the year's first day is partial, and events after the clock are left out
    const alpha = oracle(events, 'alpha', NOW);
    expect(alpha[0].date).toBe('2025-06-15');
    expect(alpha.at(-1)!.date).toBe('2026-06-15');
    expect(alpha.length).toBeGreaterThan(300);
  });

  it('counts again the events stored twice only once (a replay of the same batches)', async () => {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      await appendEvents(
        c,
        events
          .slice(0, 200)
          .map((event, i) => ({ event, knownType: true, topic: 't', partition: 0, offset: i })),
      );
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    const reads = rowsVia({ pool: () => pool });
    const counted = await new ProjectStatusReadModel(reads, 'counted').status('alpha', NOW);
    expect(counted.activityCountByDate).toEqual(oracle(events, 'alpha', NOW));
  });
});
