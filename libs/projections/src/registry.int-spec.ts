import type { PoolClient } from 'pg';
import { generateHistory } from '@flaglens/testing/generate-history';
import { projectionDatabases } from '@flaglens/testing/support/test-database';
import { interleavedBatches, withLateArrivals } from '@flaglens/testing/test-events';
import { referenceSampleEvents } from '@flaglens/testing/reference-sample';
import { applyProjections } from './apply-projections';
import { appendEvents } from './event-log/event-log.projection';
import type { Projection, ProjectionContext, SourcedEvent } from './projection';
import { allProjections } from './registry';

/** Per table of the version's schema: how many scans this transaction has made of it so far. */
async function scans(c: PoolClient): Promise<Map<string, number>> {
  const { rows } = await c.query<{ t: string; n: string }>(
    `SELECT relname AS t, (seq_scan + COALESCE(idx_scan, 0))::text AS n
       FROM pg_stat_xact_all_tables WHERE schemaname = current_schema()`,
  );
  return new Map(rows.map((r) => [r.t, Number(r.n)]));
}

/**
 * What each projection's `apply` reads besides its own tables (`Projection.reads`), measured: the histories fed
 * as the projector applies them, and around each projection's apply the scans Postgres counted per table
 * (pg_stat_xact_all_tables: every statement of the transaction, those of SQL functions and of foreign-key
 * checks included), and any look at flag-state's transitions of the batch, as a read of flag_state. A read as of an instant replays only the projections whose tables it reads and those they
 * read (registry.ts `projectionsFor`), so a read left out of a declaration would make its answers wrong.
 */
describe('what each projection reads while it applies (real Postgres)', () => {
  const dbs = projectionDatabases();
  afterAll(() => dbs.dropAll());

  it("reads only its own tables and those it declares: the rich histories' and the reference sample's", async () => {
    const sample = referenceSampleEvents();
    const histories = [
      sample,
      ...[3, 17].map((seed) =>
        withLateArrivals(
          generateHistory({
            seed,
            projects: 3,
            flagsPerProject: 4,
            events: 600,
            weeks: 12,
            end: '2026-11-20T12:00:00.000Z',
            rich: true,
          }),
          seed,
          5,
        ),
      ),
    ];
    const read = new Map(allProjections().map((p) => [p.name, new Set<string>()]));
    // each projection as it is, but that a look at flag-state's transitions of the batch counts as a read of
    // flag_state (flag-state itself writes them)
    const projections = allProjections().map(
      (p): Projection =>
        new Proxy(p, {
          get: (target, key, receiver) =>
            key !== 'apply' || p.name === 'flag-state'
              ? Reflect.get(target, key, receiver)
              : (client: PoolClient, events: SourcedEvent[], context: ProjectionContext) =>
                  p.apply(client, events, {
                    ...context,
                    transitions: new Proxy(context.transitions, {
                      get: (list, k, r) => {
                        read.get(p.name)!.add('flag_state');
                        return Reflect.get(list, k, r);
                      },
                    }),
                  }),
        }),
    );
    for (const [i, history] of histories.entries()) {
      const { ds } = await dbs.fresh(`projection_reads_${i}`);
      const c = await ds.connect();
      try {
        for (const batch of interleavedBatches(history, i + 1, 40)) {
          await c.query('BEGIN');
          const stored = await appendEvents(
            c,
            batch.map((event) => ({ event, knownType: true, topic: null, partition: null, offset: null })),
          );
          await applyProjections(c, stored, projections, {
            stage: async (name, fn) => {
              const before = await scans(c);
              const value = await fn();
              for (const [t, n] of await scans(c)) if (n > (before.get(t) ?? 0)) read.get(name)!.add(t);
              return value;
            },
          });
          await c.query('COMMIT');
        }
      } finally {
        c.release();
      }
    }
    // (the declared reads are not empty, projects' of the event log among them: equal, they were measured)
    const others = (p: (typeof projections)[number]) =>
      [...read.get(p.name)!].filter((t) => !p.writes.includes(t)).sort();
    expect(Object.fromEntries(projections.map((p) => [p.name, others(p)]))).toEqual(
      Object.fromEntries(projections.map((p) => [p.name, [...(p.reads ?? [])].sort()])),
    );
  });
});
