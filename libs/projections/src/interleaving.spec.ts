import type { FlagEvent } from '@flaglens/contract';
import { reduceEnvironments, type EnvironmentRow } from './environments/environments.logic';
import { reduceFeatureTypes } from './feature-types/feature-types.logic';
import { activityRows } from './project-activity/project-activity.logic';
import { reduceProjectEnvs, type ProjectEnvRow } from './project-environments/project-environments.logic';
import { latestEventPerProject, reduceProjects, type ProjectRow } from './projects/projects.logic';
import { sdkUsage, type SdkSeen } from './sdk-usage/sdk-usage.logic';
import { generateHistory, prng } from '@flaglens/testing/generate-history';
import { testEvent } from '@flaglens/testing/test-events';
import { enableRows } from './time-to-production/time-to-production.logic';
import {
  mergeSightings,
  reduceLifecycleFlags,
  sightingsOf,
  type LifecycleFlagRow,
  type Sighting,
} from './lifecycle/lifecycle.logic';
import { searchCountDeltas } from './event-log/search-counts.logic';

/**
 * Every projection's pure update logic, driven through an in-memory store the way the projector drives the
 * SQL one (each batch reads the stored rows, writes the result): one batch, many batches, and random
 * interleavings of the keys (each key's order kept) give the same final state; so does a second run.
 */
interface Store {
  projects: Map<string, ProjectRow>;
  latest: Map<string, string>;
  envLinks: Map<string, ProjectEnvRow[]>;
  environments: Map<string, EnvironmentRow>;
  lifetimes: Map<string, number | null>;
  flagSdk: Map<string, SdkSeen>;
  projectSdk: Map<string, SdkSeen>;
  activity: Set<string>;
  enables: Set<string>;
  lifecycleFlags: Map<string, LifecycleFlagRow>;
  sightings: Map<string, Sighting>;
  searchCounts: Map<string, number>;
}

const empty = (): Store => ({
  projects: new Map(),
  latest: new Map(),
  envLinks: new Map(),
  environments: new Map(),
  lifetimes: new Map(),
  flagSdk: new Map(),
  projectSdk: new Map(),
  activity: new Set(),
  enables: new Set(),
  lifecycleFlags: new Map(),
  sightings: new Map(),
  searchCounts: new Map(),
});

const mergeSeen = (into: Map<string, SdkSeen>, from: Map<string, SdkSeen>) => {
  for (const [k, v] of from) {
    const p = into.get(k);
    into.set(
      k,
      p ? { first: p.first < v.first ? p.first : v.first, last: p.last > v.last ? p.last : v.last } : v,
    );
  }
};

function applyBatch(s: Store, batch: FlagEvent[]): void {
  for (const r of reduceProjects(s.projects, batch).rows) s.projects.set(r.id, r);
  for (const [p, at] of latestEventPerProject(batch))
    if (!s.latest.has(p) || s.latest.get(p)! < at) s.latest.set(p, at);
  for (const [p, rows] of reduceProjectEnvs([...s.envLinks.values()].flat(), batch).projects)
    s.envLinks.set(p, rows);
  for (const r of reduceEnvironments(s.environments, batch).rows) s.environments.set(r.name, r);
  for (const [k, v] of reduceFeatureTypes(batch).lifetimes) s.lifetimes.set(k, v);
  const sdk = sdkUsage(batch);
  mergeSeen(s.flagSdk, sdk.flags);
  mergeSeen(s.projectSdk, sdk.projects);
  for (const r of activityRows(batch)) s.activity.add(JSON.stringify(r));
  for (const r of enableRows(batch)) s.enables.add(JSON.stringify(r));
  for (const r of reduceLifecycleFlags(s.lifecycleFlags, batch).rows) s.lifecycleFlags.set(r.name, r);
  mergeSightings(s.sightings, sightingsOf(batch));
  for (const [k, n] of searchCountDeltas(batch)) s.searchCounts.set(k, (s.searchCounts.get(k) ?? 0) + n);
}

/** Comparable form: maps sorted by key, row lists sorted. */
function snapshot(s: Store): unknown {
  const sortMap = <V>(m: Map<string, V>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const sortRows = <V>(m: Map<string, V[]>) =>
    sortMap(m).map(([k, rows]) => [k, rows.map((r) => JSON.stringify(r)).sort()]);
  return {
    projects: sortMap(s.projects),
    latest: sortMap(s.latest),
    envLinks: sortRows(s.envLinks),
    environments: sortMap(s.environments),
    lifetimes: sortMap(s.lifetimes),
    flagSdk: sortMap(s.flagSdk),
    projectSdk: sortMap(s.projectSdk),
    activity: [...s.activity].sort(),
    enables: [...s.enables].sort(),
    lifecycleFlags: sortMap(s.lifecycleFlags),
    sightings: sortMap(s.sightings),
    searchCounts: sortMap(s.searchCounts),
  };
}

function interleavedBatches(events: FlagEvent[], seed: number): FlagEvent[][] {
  const rnd = prng(seed);
  const byKey = new Map<string, FlagEvent[]>();
  for (const e of events) {
    const k = e.featureName ?? e.project ?? 'instance';
    byKey.set(k, [...(byKey.get(k) ?? []), e]);
  }
  const queues = [...byKey.values()];
  const order: FlagEvent[] = [];
  while (queues.length) {
    const i = Math.floor(rnd() * queues.length);
    order.push(queues[i].shift()!);
    if (!queues[i].length) queues.splice(i, 1);
  }
  const batches: FlagEvent[][] = [];
  for (let i = 0; i < order.length;) {
    const n = 1 + Math.floor(rnd() * 100);
    batches.push(order.slice(i, i + n));
    i += n;
  }
  return batches;
}

describe('every projection: replay and interleaving give the same final state', () => {
  const base = generateHistory({
    seed: 21,
    projects: 4,
    flagsPerProject: 25,
    events: 2500,
    weeks: 10,
    end: '2026-11-01T00:00:00Z',
  });
  // plus the kinds the generator does not produce: environments, feature types, access changes, deletions
  let id = base.length;
  const extra = [
    testEvent(++id, 'environment-created', {
      data: { name: 'qa', type: 'test', sortOrder: 5, enabled: true },
    }),
    testEvent(++id, 'environment-updated', { data: { name: 'qa', type: 'production' } }),
    testEvent(++id, 'feature-type-updated', { data: { id: 'release', lifetimeDays: 21 } }),
    // Unleash 7+: a project-updated carrying the project's link templates
    testEvent(++id, 'project-updated', {
      project: 'sim-project-2',
      data: { id: 'sim-project-2', linkTemplates: [{ title: 'Code', urlTemplate: 'https://x/{{feature}}' }] },
    }),
    testEvent(++id, 'project-access-user-roles-updated', {
      project: 'sim-project-1',
      data: { userId: 3, roles: [5, 6] },
    }),
    testEvent(++id, 'project-access-user-roles-deleted', {
      project: 'sim-project-2',
      preData: { userId: 4, roles: [5] },
    }),
    testEvent(++id, 'project-environment-removed', { project: 'sim-project-3', environment: 'production' }),
    testEvent(++id, 'project-deleted', { project: 'sim-project-3' }),
    testEvent(++id, 'client-register', { project: 'sim-project-1', data: { appName: 'x' } }),
    // lifecycle: completion, its undoing, a disable, a report in another environment
    ...['sim-project-1.flag-1', 'sim-project-2.flag-2'].flatMap((f) => [
      testEvent(++id, 'feature-completed', {
        featureName: f,
        project: f.split('.')[0],
        data: { status: 'kept' },
      }),
      testEvent(++id, 'feature-environment-disabled', {
        featureName: f,
        project: f.split('.')[0],
        environment: 'production',
      }),
    ]),
    testEvent(++id, 'feature-uncompleted', { featureName: 'sim-project-1.flag-1', project: 'sim-project-1' }),
    testEvent(++id, 'client-metrics', {
      data: {
        appName: 'x',
        environment: 'development',
        bucket: {
          start: '2026-10-31T23:00:00Z',
          stop: '2026-11-01T00:00:00Z',
          toggles: { 'sim-project-2.flag-2': {} },
        },
      },
    }),
  ].map((e) => ({ ...e, createdAt: '2026-11-01T00:00:00.000Z' }));
  // hostile: settings events without their project (keyed `instance`, so in no order with the project's own
  // events) that name it in `data.id`; first, so some interleavings put them after the project's creation
  const hostile = [
    testEvent(++id, 'project-updated', {
      project: null,
      data: { id: 'sim-project-1', featureNaming: { pattern: 'h1-.*' } },
    }),
    testEvent(++id, 'project-updated', {
      project: null,
      data: { id: 'sim-project-2', featureNaming: { pattern: 'h2-.*' } },
    }),
  ].map((e) => ({ ...e, createdAt: base[0].createdAt }));
  const history = [...hostile, ...base, ...extra];

  const run = (batches: FlagEvent[][]) => {
    const s = empty();
    for (const b of batches) applyBatch(s, b);
    return snapshot(s);
  };

  it('one batch, twice (deterministic), many batches and random interleavings', () => {
    const once = run([history]);
    // the lifecycle rows are there to compare (flags, completions, sightings)
    const { lifecycleFlags, sightings } = once as {
      lifecycleFlags: [string, LifecycleFlagRow][];
      sightings: unknown[];
    };
    expect(lifecycleFlags.length).toBeGreaterThan(50);
    expect(lifecycleFlags.filter(([, r]) => r.completedAt !== null)).toHaveLength(1);
    expect(sightings.length).toBeGreaterThan(10);
    // the search's counts: every searchable event counted once per dimension, SDK traffic not at all
    const counts = (once as { searchCounts: [string, number][] }).searchCounts;
    const all = counts.filter(([k]) => k.startsWith('["",'));
    expect(all.reduce((t, [, n]) => t + n, 0)).toBe(
      history.filter((e) => !['client-metrics', 'client-register'].includes(e.type)).length,
    );
    expect(run([history])).toEqual(once);
    const chunks: FlagEvent[][] = [];
    for (let i = 0; i < history.length; i += 13) chunks.push(history.slice(i, i + 13));
    expect(run(chunks)).toEqual(once);
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) expect(run(interleavedBatches(history, seed))).toEqual(once);
  });
});
