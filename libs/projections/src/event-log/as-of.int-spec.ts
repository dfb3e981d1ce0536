import fc from 'fast-check';
import { isAsOfRefusal, parseAsOf, type FlagEvent } from '@flaglens/contract';
import { generateHistory } from '@flaglens/testing/generate-history';
import { feedProjections } from '@flaglens/testing/support/feed-projections';
import { projectionDatabases } from '@flaglens/testing/support/test-database';
import { interleavedBatches, withLateArrivals } from '@flaglens/testing/test-events';
import { referenceSampleEvents } from '@flaglens/testing/reference-sample';
import { EventLogReadModel } from './event-log.read-model';
import { isSearchRefusal, parseEventSearch } from './event-search.logic';

/**
 * Reads as of an instant (docs/design.md, "Reads as of an instant"): for random histories and random instants
 * T, the read with at=T of a database fed the whole history equals the same read, without at, of a fresh
 * database fed only the events created up to T. Real Postgres; events applied as the projector applies them
 * (the event log first, every projection, one transaction per batch, keys interleaved at random).
 */
const feed = feedProjections;

const END = '2026-11-20T12:00:00.000Z';
const DAY = 86_400_000;
const PROJECTS = ['default', 'sim-project-1', 'sim-project-2'];

/**
 * A history with late arrivals: some events get ids above every other while keeping their old `createdAt`
 * (as Unleash 7's `user-created` amend rows do), so they are fed after events newer than them.
 */
function historyOf(seed: number, late: number): FlagEvent[] {
  const events = generateHistory({
    seed,
    projects: PROJECTS.length,
    flagsPerProject: 4,
    events: 300,
    weeks: 4,
    end: END,
    rich: true,
  });
  return withLateArrivals(events, seed, late);
}

/** The search's parameters, of the reference's (the at= side adds `at`). */
const searchParams = fc.record(
  {
    project: fc.subarray(PROJECTS, { minLength: 1 }).map((ps) => `IS_ANY_OF:${ps.join(',')}`),
    type: fc.constantFrom(
      'IS:feature-created',
      'IS_ANY_OF:feature-environment-enabled,feature-environment-disabled',
      'IS:user-created',
    ),
    query: fc.constantFrom('flag', 'sim', 'production'),
    limit: fc.constantFrom('1', '7', '1000'),
    offset: fc.constantFrom('0', '3', '40'),
    from: fc.constantFrom('IS:2026-10-25', 'IS:2026-11-10'),
  },
  { requiredKeys: [] },
);

describe('reads as of an instant equal the reads of a log cut at that instant (real Postgres)', () => {
  const dbs = projectionDatabases();
  afterAll(() => dbs.dropAll());

  it("a flag's events and the event search, for random histories and instants", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 12 }),
        fc.array(
          fc.record({
            // an event's own instant (ties at T included), any instant of the history, before it, after it
            instant: fc.oneof(
              fc.nat().map((n) => ({ event: n })),
              fc.integer({ min: -30 * DAY, max: 2 * DAY }).map((ms) => ({ ms })),
            ),
            offset: fc.integer({ min: -12, max: 14 }),
            hidden: fc.subarray(PROJECTS, { maxLength: 2 }),
            restricted: fc.boolean(),
            search: searchParams,
          }),
          { minLength: 1, maxLength: 2 },
        ),
        async (seed, late, asks) => {
          const history = historyOf(seed, late);
          const whole = await dbs.fresh(`asof_whole_${runs}`);
          await feed(whole.ds, interleavedBatches(history, seed, 60));
          const all = new EventLogReadModel({ pool: () => whole.ds.pool });
          const flags = [...new Set(history.map((e) => e.featureName).filter((n) => n !== null))];
          flags.push('never-a-flag');
          for (const [i, ask] of asks.entries()) {
            const ms =
              'event' in ask.instant
                ? Date.parse(history[ask.instant.event % history.length].createdAt)
                : Date.parse(END) + ask.instant.ms;
            // the instant as a caller may write it: in some offset from UTC
            const local = new Date(ms + ask.offset * 3_600_000).toISOString().slice(0, 23);
            const sign = ask.offset < 0 ? '-' : '+';
            const parsed = parseAsOf(`${local}${sign}${String(Math.abs(ask.offset)).padStart(2, '0')}:00`);
            if (isAsOfRefusal(parsed)) throw new Error(parsed.message);
            const at = parsed.at!;
            expect(Date.parse(at)).toBe(ms);

            const cut = await dbs.fresh(`asof_cut_${runs}_${i}`);
            await feed(
              cut.ds,
              interleavedBatches(
                history.filter((e) => Date.parse(e.createdAt) <= ms),
                seed + i,
                60,
              ),
            );
            const then = new EventLogReadModel({ pool: () => cut.ds.pool });

            for (const flag of flags) {
              expect(await all.eventsOfFlag(flag, ask.hidden, at)).toEqual(
                await then.eventsOfFlag(flag, ask.hidden),
              );
              // the cut-off of a long list is taken as of the instant too
              expect(await all.storedEventsOfFlag(flag, [], 5, at)).toEqual(
                await then.storedEventsOfFlag(flag, [], 5),
              );
            }
            // the cursor of a long list
            const c = await whole.ds.connect();
            try {
              const flag = flags[seed % flags.length];
              const cursor = await all.openEventsOfFlag(c, flag, ask.hidden, at);
              const pages: string[] = [];
              for (let page = await cursor.next(3); page.length > 0; page = await cursor.next(3))
                pages.push(...page);
              await cursor.close();
              expect(pages).toEqual(await then.storedEventsOfFlag(flag, ask.hidden, 100_000));
            } finally {
              c.release();
            }

            const search = parseEventSearch({ ...ask.search, at });
            const cutSearch = parseEventSearch(ask.search);
            if (isSearchRefusal(search) || isSearchRefusal(cutSearch)) throw new Error('refused');
            expect(await all.searchEvents(search, ask.restricted, ask.hidden)).toEqual(
              await then.searchEvents(cutSearch, ask.restricted, ask.hidden),
            );
            expect(await all.searchEvents({ ...search, limit: 1000, offset: 0 }, false)).toEqual(
              await then.searchEvents({ ...cutSearch, limit: 1000, offset: 0 }, false),
            );
          }
          runs++;
        },
      ),
      { numRuns: 4 },
    );
    expect(runs).toBeGreaterThanOrEqual(4);
  });

  it('the recorded reference sample, at ten instants', async () => {
    const sample = referenceSampleEvents();
    const whole = await dbs.fresh('asof_sample_whole');
    await feed(whole.ds, interleavedBatches(sample, 1, 10));
    const all = new EventLogReadModel({ pool: () => whole.ds.pool });
    // one database fed in steps of createdAt: after each step, a flaglens fed the events up to that instant
    const cut = await dbs.fresh('asof_sample_cut');
    const then = new EventLogReadModel({ pool: () => cut.ds.pool });
    const times = [...new Set(sample.map((e) => Date.parse(e.createdAt)))].sort((a, b) => a - b);
    const instants = Array.from({ length: 10 }, (_, k) => {
      const t = times[Math.floor((k * (times.length - 1)) / 9)];
      return k % 2 === 0 ? t : t + 1; // on an event's own instant, and just after it
    });
    instants[0] = times[0] - 1; // before the first event
    const flags = [...new Set(sample.map((e) => e.featureName).filter((n) => n !== null))];
    const fed = new Set<number>();
    for (const ms of instants) {
      const next = sample.filter((e) => Date.parse(e.createdAt) <= ms && !fed.has(e.id));
      next.forEach((e) => fed.add(e.id));
      if (next.length > 0) await feed(cut.ds, [next]);
      const at = new Date(ms).toISOString();
      for (const flag of flags)
        expect(await all.eventsOfFlag(flag, [], at)).toEqual(await then.eventsOfFlag(flag));
      for (const raw of [{ limit: '1000' }, { type: 'IS:feature-created' }, { project: 'IS:default' }]) {
        const asOf = parseEventSearch({ ...raw, at });
        const now = parseEventSearch(raw);
        if (isSearchRefusal(asOf) || isSearchRefusal(now)) throw new Error('refused');
        expect(await all.searchEvents(asOf, false)).toEqual(await then.searchEvents(now, false));
        expect(await all.searchEvents(asOf, true, ['default'])).toEqual(
          await then.searchEvents(now, true, ['default']),
        );
      }
    }
    expect(fed.size).toBe(sample.length);
  });

  it('before the first event: no events; in the future: every event created up to then', async () => {
    const history = historyOf(3, 4);
    const { ds } = await dbs.fresh('asof_edges');
    await feed(ds, [history]);
    const model = new EventLogReadModel({ pool: () => ds.pool });
    const flag = history.find((e) => e.featureName !== null)!.featureName!;
    const before = new Date(Date.parse(history[0].createdAt) - 1).toISOString();
    expect(await model.eventsOfFlag(flag, [], before)).toEqual({ eventsJson: '', total: 0 });
    // as an unknown flag answers now
    expect(await model.eventsOfFlag('never-a-flag')).toEqual({ eventsJson: '', total: 0 });
    const search = parseEventSearch({ at: before, limit: '1000' });
    if (isSearchRefusal(search)) throw new Error(search.message);
    expect(await model.searchEvents(search, false)).toEqual({ bodies: [], total: 0 });

    const future = '2999-01-01T00:00:00.000Z';
    expect(await model.eventsOfFlag(flag, [], future)).toEqual(await model.eventsOfFlag(flag));
    const later = parseEventSearch({ at: future, limit: '1000' });
    const now = parseEventSearch({ limit: '1000' });
    if (isSearchRefusal(later) || isSearchRefusal(now)) throw new Error('refused');
    expect(await model.searchEvents(later, false)).toEqual(await model.searchEvents(now, false));
  });
});
