import type { FlagEvent } from '@flaglens/contract';
import { projectionDatabases, type TestDatabase } from '@flaglens/testing/support/test-database';
import { generateHistory } from '@flaglens/testing/generate-history';
import { interleavedBatches, testEvent } from '@flaglens/testing/test-events';
import { reduceFlagState, type FlagRow } from '../flag-state/flag-state.logic';
import { reduceEnvironments, type EnvironmentRow } from '../environments/environments.logic';
import {
  lifecycleSummary,
  mergeSightings,
  reduceLifecycleFlags,
  sightingsOf,
  stagesOf,
  type LifecycleFlagRow,
  type Sighting,
} from './lifecycle.logic';
import type { QueryRunner } from 'typeorm';
import { LifecycleReadModel } from './lifecycle.read-model';
import { LifecycleEnableSpans1763800005500 } from './lifecycle-enable-spans.migration';
import { LifecycleSpansApart1763800005600 } from './lifecycle-spans-apart.migration';
import { feedProjections } from '@flaglens/testing/support/feed-projections';

/** The lifecycle projection on real Postgres, applied as the projector does (one transaction per batch). */
const TABLES = ['lifecycle_flags', 'lifecycle_enable_spans', 'lifecycle_sightings'];
const END = '2026-11-01T00:00:00.000Z';

/** Pairs of stored spans of a flag and environment that overlap. */
async function overlaps(db: TestDatabase): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM lifecycle_enable_spans a JOIN lifecycle_enable_spans b
        ON a.feature_name = b.feature_name AND a.environment = b.environment
       AND (a.from_at, a.to_at) < (b.from_at, b.to_at) AND b.from_at < a.to_at`,
  );
  return n;
}

async function dump(db: TestDatabase): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) out[t] = await db.query(`SELECT to_jsonb(x)::text AS r FROM ${t} x ORDER BY 1`);
  return out;
}

/** The history: generated, plus completions, disables, a retyped environment and reports in development. */
function lifecycleHistory(): FlagEvent[] {
  const base = generateHistory({
    seed: 36,
    projects: 3,
    flagsPerProject: 20,
    events: 1500,
    weeks: 8,
    end: END,
  });
  let id = base.length;
  const flags = [...new Set(base.filter((e) => e.type === 'feature-created').map((e) => e.featureName!))];
  const extra: FlagEvent[] = [];
  flags.forEach((f, i) => {
    const project = f.split('.')[0];
    const when = (h: number) =>
      new Date(Date.parse(END) - 86_400_000 * (i % 20) + h * 3_600_000).toISOString();
    if (i % 3 === 0)
      extra.push(
        testEvent(++id, 'feature-completed', {
          featureName: f,
          project,
          createdAt: when(1),
          data: { status: 'kept' },
        }),
      );
    if (i % 6 === 0)
      extra.push(testEvent(++id, 'feature-uncompleted', { featureName: f, project, createdAt: when(2) }));
    if (i % 4 === 1)
      extra.push(
        testEvent(++id, 'feature-environment-disabled', {
          featureName: f,
          project,
          environment: 'production',
          createdAt: when(3),
        }),
      );
    if (i % 2 === 0)
      extra.push(
        testEvent(++id, 'client-metrics', {
          createdAt: when(-30),
          data: {
            appName: 'dev-app',
            environment: 'development',
            bucket: { start: when(-30), stop: when(-29), toggles: { [f]: { yes: 1, no: 1 } } },
          },
        }),
      );
    if (i % 5 === 2) {
      // toggled in production again and again, and reported there from inside one closed span (i % 10 === 2) or
      // from a gap between two (i % 10 === 7): the stages depend on which closed span the report meets first
      for (let k = 0; k < 4; k++) {
        const at = (h: number) => when(-200 + 40 * k + h);
        extra.push(
          testEvent(++id, 'feature-environment-enabled', {
            featureName: f,
            project,
            environment: 'production',
            createdAt: at(0),
          }),
          testEvent(++id, 'feature-environment-disabled', {
            featureName: f,
            project,
            environment: 'production',
            createdAt: at(10),
          }),
        );
      }
      const first = when(i % 10 === 2 ? -200 + 40 + 5 : -200 + 40 + 20);
      extra.push(
        testEvent(++id, 'client-metrics', {
          createdAt: first,
          data: {
            appName: 'prod-app',
            environment: 'production',
            bucket: { start: first, stop: when(-200 + 40 * 3 + 2), toggles: { [f]: { yes: 1, no: 0 } } },
          },
        }),
      );
    }
  });
  extra.push(
    testEvent(++id, 'environment-created', {
      createdAt: END,
      data: { name: 'staging', type: 'production', sortOrder: 5, enabled: true },
    }),
  );
  const sorted = [...base, ...extra].sort((a, b) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0,
  );
  // events dated out of order, last in the log: of the flags toggled again and again, a span from inside the
  // second toggle to inside the third overlaps both (stored as one span with them, `mergeSpans`), and for every
  // tenth of them one inside the fourth (stored within it)
  const late: FlagEvent[] = [];
  flags.forEach((f, i) => {
    if (i % 5 !== 2) return;
    const project = f.split('.')[0];
    const when = (h: number) =>
      new Date(Date.parse(END) - 86_400_000 * (i % 20) + h * 3_600_000).toISOString();
    const toggle = (from: number, to: number) =>
      late.push(
        testEvent(++id, 'feature-environment-enabled', {
          featureName: f,
          project,
          environment: 'production',
          createdAt: when(from),
        }),
        testEvent(++id, 'feature-environment-disabled', {
          featureName: f,
          project,
          environment: 'production',
          createdAt: when(to),
        }),
      );
    toggle(-200 + 40 + 5, -200 + 80 + 5);
    if (i % 10 === 2) toggle(-200 + 120 + 2, -200 + 120 + 4);
  });
  return [...sorted, ...late];
}

describe('lifecycle projection (real Postgres)', () => {
  const dbs = projectionDatabases();
  const history = lifecycleHistory();
  async function fresh(label: string) {
    const { db, ds } = await dbs.fresh(label);
    return { db, ds, model: new LifecycleReadModel(ds) };
  }
  afterAll(() => dbs.dropAll());

  const NOW = new Date(END);
  const answers = async (model: LifecycleReadModel) => ({
    all: await model.summary(NOW, null),
    some: await model.summary(NOW, ['sim-project-1', 'sim-project-2']),
    hidden: await model.summary(NOW, null, ['sim-project-1']),
    stages: await Promise.all(['sim-project-1.flag-0', 'sim-project-2.flag-3'].map((f) => model.stages(f))),
  });

  it('replaying the same events twice changes nothing; any interleaving of keys gives the same rows and answers', async () => {
    const a = await fresh('lc_replay_a');
    await feedProjections(a.ds, [history]);
    const once = await dump(a.db);
    const answerOnce = await answers(a.model);
    await feedProjections(a.ds, [history]); // the event log stores each id once: projections see nothing new
    expect(await dump(a.db)).toEqual(once);
    expect(await answers(a.model)).toEqual(answerOnce);
    for (const seed of [1, 2]) {
      const b = await fresh(`lc_interleave_${seed}`);
      await feedProjections(b.ds, interleavedBatches(history, seed, 200));
      expect(await dump(b.db)).toEqual(once);
      expect(await answers(b.model)).toEqual(answerOnce);
    }
    // the history exercises every summary stage and the filters
    const t = answerOnce.all.body.lifecycleTrends;
    expect(t.develop.totalFlags).toBeGreaterThan(0);
    expect(t.production.totalFlags).toBeGreaterThan(0);
    expect(t.cleanup.totalFlags).toBeGreaterThan(0);
    expect(answerOnce.some.body).not.toEqual(answerOnce.all.body);
    expect(answerOnce.hidden.body).not.toEqual(answerOnce.all.body);
  });

  it('the migration moves the closed spans out of the rows as the projector writes them; down moves them back', async () => {
    const { db, ds, model } = await fresh('lc_migration');
    await feedProjections(ds, [history]);
    const written = await dump(db);
    const answered = await answers(model);
    expect(written.lifecycle_enable_spans.length).toBeGreaterThan(20);
    const runner = { query: (sql: string) => db.query(sql) } as unknown as QueryRunner;
    const migration = new LifecycleEnableSpans1763800005500();
    // the rows as the release before kept them: every span in the row, the table gone
    await migration.down(runner);
    const [{ spans }] = await db.query<{ spans: string }>(
      `SELECT sum(jsonb_array_length(enables))::text AS spans FROM lifecycle_flags`,
    );
    expect(Number(spans)).toBeGreaterThan(written.lifecycle_enable_spans.length);
    await migration.up(runner);
    expect(await dump(db)).toEqual(written);
    expect(await answers(model)).toEqual(answered);
  });

  it('the migration merges the stored spans that overlap; the answers stay', async () => {
    const { db, ds, model } = await fresh('lc_spans_apart');
    await feedProjections(ds, [history]);
    const written = await dump(db);
    const answered = await answers(model);
    // spans as the release before stored them: each as it was closed, overlapping ones apart
    const [flag] = await db.query<{ feature_name: string; environment: string; from_at: Date; to_at: Date }>(
      `SELECT feature_name, environment, from_at, to_at FROM lifecycle_enable_spans
        ORDER BY feature_name, from_at LIMIT 1`,
    );
    const at = (d: Date, h: number) => new Date(d.getTime() + h * 3_600_000).toISOString();
    await db.query(`DELETE FROM lifecycle_enable_spans WHERE feature_name = $1 AND from_at = $2`, [
      flag.feature_name,
      flag.from_at,
    ]);
    const parts = [
      [flag.from_at.toISOString(), at(flag.to_at, -1)],
      [at(flag.from_at, 0.5), flag.to_at.toISOString()],
    ];
    for (const [from, to] of parts)
      await db.query(
        `INSERT INTO lifecycle_enable_spans (feature_name, environment, from_at, to_at) VALUES ($1, $2, $3, $4)`,
        [flag.feature_name, flag.environment, from, to],
      );
    expect(await overlaps(db)).toBe(1);
    await new LifecycleSpansApart1763800005600().up({
      query: (sql: string) => db.query(sql),
    } as unknown as QueryRunner);
    expect(await overlaps(db)).toBe(0);
    expect(await dump(db)).toEqual(written);
    expect(await answers(model)).toEqual(answered);
  });

  it('agrees with the pure rules applied to the pure reductions of the same events', async () => {
    const { db, ds, model } = await fresh('lc_oracle');
    await feedProjections(ds, interleavedBatches(history, 7, 150));
    // the spans dated out of order were stored merged: fewer than were closed, none overlapping another
    expect(await overlaps(db)).toBe(0);
    const [{ n }] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM lifecycle_enable_spans`);
    expect(n).toBeLessThan(reduceLifecycleFlags(new Map(), history).closed.length);
    // the oracle: every reduction over the whole history, in order
    const flagState = new Map<string, FlagRow>();
    for (const r of reduceFlagState(new Map(), history).rows) flagState.set(r.name, r);
    // every span of each flag, open (its row) and closed, as the pure rules define the stages
    const lifecycle = new Map<string, LifecycleFlagRow>();
    const reduced = reduceLifecycleFlags(new Map(), history);
    for (const r of reduced.rows)
      lifecycle.set(r.name, {
        ...r,
        enables: [...r.enables, ...reduced.closed.filter((c) => c.name === r.name)],
      });
    const seen = new Map<string, Sighting>();
    mergeSightings(seen, sightingsOf(history));
    const envs = new Map<string, EnvironmentRow>(
      ['default', 'development', 'production'].map((name) => [
        name,
        {
          name,
          type: name === 'default' ? 'production' : name,
          sortOrder: 0,
          enabled: true,
          deleted: false,
          createdAt: null,
        },
      ]),
    );
    for (const r of reduceEnvironments(envs, history).rows) envs.set(r.name, r);
    const types = new Map([...envs.values()].filter((e) => !e.deleted).map((e) => [e.name, e.type]));
    const existing = [...flagState.values()]
      .filter((f) => !f.deleted)
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const stagesOfFlag = (name: string) =>
      stagesOf(
        lifecycle.get(name)!,
        [...seen.values()].filter((s) => s.featureName === name),
        types,
      );
    for (const f of existing)
      expect([f.name, await model.stages(f.name)]).toEqual([f.name, stagesOfFlag(f.name)]);
    expect(await model.stages('no-such-flag')).toBeNull();
    for (const projects of [null, ['sim-project-2']]) {
      const expected = lifecycleSummary(
        existing
          .filter((f) => projects === null || projects.includes(f.project))
          .map((f) => ({ type: f.type, archived: f.archivedAt !== null, stages: stagesOfFlag(f.name) })),
        NOW,
      );
      expect(await model.summary(NOW, projects)).toEqual(expected);
    }
    // some flags went live, some were reported in development only
    const current = existing.map((f) => stagesOfFlag(f.name).at(-1)!.stage);
    expect(current).toEqual(expect.arrayContaining(['live', 'pre-live', 'completed', 'initial', 'archived']));
  });
});
