import type { PoolClient } from 'pg';
import type { ReadPool } from '@flaglens/persistence';
import { wireFromStored } from './event-wire';
import { answeringRelease, type UnleashRelease } from '@flaglens/contract';
import type { EventSearch } from './event-search.logic';
import { COUNTED_PAIRS, isCountedColumn, SDK_EVENT_TYPES } from './search-counts.logic';
import { indexPattern, trigramSample, type TrigramSample } from './search-fragment.logic';
import type { Reads } from '../change-feed';

/** What a flag's event list reads: its rows of the log (change-feed.ts). */
export const FLAG_EVENTS_READS: Reads = { tables: ['event_log'], by: 'flags' };

/** How many stored texts the free-text search's trigram sample holds, and how long one is kept. */
const SAMPLE_ROWS = 5_000;
const SAMPLE_TTL_MS = 10 * 60_000;

export interface FlagEventList {
  /** JSON array elements, already serialised, newest first (createdAt desc, then id desc). */
  eventsJson: string;
  total: number;
}

/**
 * An event the caller may see: it names no hidden project (the parameter `hidden`, a text array), neither as its
 * own nor, for a flag's move, as the project it left or joined. The one statement of the rule (the event
 * lists, the console's pages).
 */
export const visibleTo = (hidden: string): string =>
  `(project IS NULL OR project <> ALL(${hidden}::text[])) AND (other_projects IS NULL OR NOT other_projects && ${hidden}::text[])`;
const VISIBLE = visibleTo('$2');

/** A place in a list of events ordered by createdAt, then id (a flag's list, a diff's events): a page's last event. */
export interface EventPageCursor {
  /** createdAt of the page's last event, microseconds since the epoch (decimal) */
  at: string;
  id: string;
}

/**
 * A page's place in the order createdAt, then id: `op` '<' for the pages after it newest first, '>' oldest first;
 * `at` and `id` the parameters holding the cursor. The time in microseconds since the epoch: exact, and no text a
 * timestamp parser could refuse.
 */
const afterCursor = (op: '<' | '>', at: string, id: string): string =>
  `(created_at, id) ${op} (timestamptz 'epoch' + ${at}::bigint * interval '1 microsecond', ${id}::bigint)`;
/** The columns a cursor is made of (EventPageCursor), beside the body. */
const CURSOR_COLUMNS = `(extract(epoch FROM created_at) * 1000000)::bigint::text AS at, id::text AS id`;

/**
 * Whose events a change between two instants is explained by (`eventsBetween`): a flag's, a project's (its own
 * and the moves of flags in or out of it), a user's identity (the identity events naming the user, and those
 * the user made), or the whole instance's.
 */
export type EventScope =
  | { kind: 'flag'; featureName: string }
  | { kind: 'project'; projectId: string }
  | { kind: 'identity'; userId: number; types: readonly string[] }
  | { kind: 'instance' };

export interface EventPage {
  /** the events' wire JSON, newest first */
  eventsJson: string;
  /** every visible event of the flag (first page only; null on later pages) */
  total: number | null;
  /** where the next (older) page starts; null at the end */
  next: EventPageCursor | null;
}

/** A flag's events ($1) that the caller may see, in the list's order. */
const EVENTS_OF_FLAG = `SELECT body FROM event_log WHERE feature_name = $1 AND ${VISIBLE} ORDER BY created_at DESC, id DESC`;
/** As EVENTS_OF_FLAG, as of an instant ($3): the events created up to it (docs/design.md, "Reads as of an instant"). */
const EVENTS_OF_FLAG_AT = `SELECT body FROM event_log WHERE feature_name = $1 AND ${VISIBLE} AND created_at <= $3::timestamptz
  ORDER BY created_at DESC, id DESC`;

/** The events of several flags ($1, each up to $2 of them), numbered by the flag's place in $1, in the list's order. */
const EVENTS_OF_FLAGS = `SELECT f.n::int, e.body FROM unnest($1::text[]) WITH ORDINALITY AS f(name, n)
  CROSS JOIN LATERAL (SELECT body, created_at, id FROM event_log WHERE feature_name = f.name
                       ORDER BY created_at DESC, id DESC LIMIT $2) e
  ORDER BY f.n, e.created_at DESC, e.id DESC`;

/** Not SDK traffic (`client-metrics`, `client-register`): events on the topic that Unleash's log never holds. */
const NOT_SDK = `type NOT IN (${SDK_EVENT_TYPES.map((t) => `'${t}'`).join(', ')})`;

/**
 * The three texts the free-text `query` matches, joined: the expression of the trigram index
 * (event-search-speed.migration.ts), which the search's condition must repeat exactly for the planner to use it.
 */
export const SEARCH_TEXT = `(COALESCE(data_text, '') || E'\\n' || COALESCE(tags_text, '') || E'\\n' || COALESCE(pre_data_text, ''))`;

/**
 * The statement that sums the search's exact total from `event_search_counts` (search-counts.logic.ts), or
 * null when it cannot: free text, filters on two columns (but a project or an environment, and a type) or on one
 * not counted, hidden projects. It answers null (count the log instead) when a day bound is not a UTC midnight in the
 * session's time zone, where `created_at >= 'yyyy-MM-dd'` is read, since the rows count UTC days.
 */
function countedTotal(
  search: EventSearch,
  restricted: boolean,
  hidden: string[],
): { text: string; values: unknown[] } | null {
  // the day counts know no instant within a day: a read as of one counts the log
  if (search.query !== null || search.at !== null || hidden.length > 0 || search.in.length > 2) return null;
  const values: unknown[] = [];
  const param = (v: unknown) => `$${values.push(v)}`;
  const valuesOf = (f: EventSearch['in'][number]) =>
    f.column === 'created_by_user_id' ? f.values.map((v) => String(Number(v))) : f.values;
  let where: string[];
  if (search.in.length === 2) {
    // the pairs counted: a project or an environment, and a type (in either order of the parameters)
    const type = search.in.find((f) => f.column === 'type');
    const other = search.in.find((f) => f !== type);
    if (!type || !other || !(COUNTED_PAIRS as readonly string[]).includes(other.column)) return null;
    where = [
      `dim = ${param(`${other.column}+type`)}`,
      `value = ANY(${param(other.values)}::text[])`,
      `value2 = ANY(${param(type.values)}::text[])`,
    ];
  } else {
    const f = search.in[0];
    if (f !== undefined && !isCountedColumn(f.column)) return null;
    where = [
      `dim = ${param(f?.column ?? '')}`,
      `value = ANY(${param(f === undefined ? [''] : valuesOf(f))}::text[])`,
      `value2 = ''`,
    ];
  }
  if (restricted) where.push('with_project');
  const exact: string[] = [];
  for (const [bound, op] of [
    [search.from, '>='],
    [search.before, '<'],
  ] as const) {
    if (bound === null) continue;
    const b = `${param(bound)}::text`;
    where.push(`day ${op} ${b}::date`);
    exact.push(`${b}::timestamptz = ${b}::date::timestamp AT TIME ZONE 'UTC'`);
  }
  const sum = `SELECT COALESCE(sum(n), 0) FROM event_search_counts WHERE ${where.join(' AND ')}`;
  const text =
    exact.length === 0
      ? `SELECT (${sum}) AS n`
      : `SELECT CASE WHEN ${exact.join(' AND ')} THEN (${sum}) END AS n`;
  return { text, values };
}

/**
 * Columns indexed as (column, created_at DESC, id DESC): one value's events come from it in the answer's order.
 * In the order a page prefers them, the narrowest kinds of filter first.
 */
const ORDERED_BY_VALUE = ['feature_name', 'group_id', 'created_by_user_id', 'project', 'type', 'environment'];
/** Values of one filter merged from their own index scans; more are read through `= ANY` as one condition. */
const MERGED_VALUES_MAX = 20;

/**
 * The conditions of a search, as SQL on `event_log` with its values bound through `param`: every filter of
 * `search`, its day bounds and instant, free text (the three ILIKEs that decide as the reference does), and
 * what a restricted caller may see. The one place these rules are written: every statement of a search
 * (its page, read whole or value by value, and its count) uses them.
 */
function searchConditions(
  search: EventSearch,
  restricted: boolean,
  hidden: string[],
  param: (v: unknown) => string,
): string[] {
  // SDK traffic rides the topic as events, but it is no audit event: Unleash's log has none of it
  const where: string[] = [NOT_SDK];
  for (const f of search.in) {
    const numeric = f.column === 'id' || f.column === 'created_by_user_id';
    where.push(
      `${f.column} = ANY(${param(numeric ? f.values.map(Number) : f.values)}::${numeric ? 'bigint' : 'text'}[])`,
    );
  }
  if (search.from !== null) where.push(`created_at >= ${param(search.from)}::timestamptz`);
  if (search.before !== null) where.push(`created_at < ${param(search.before)}::timestamptz`);
  if (search.at !== null) where.push(`created_at <= ${param(search.at)}::timestamptz`);
  if (search.query !== null) {
    const p = param(`%${search.query}%`);
    where.push(`(data_text ILIKE ${p} OR tags_text ILIKE ${p} OR pre_data_text ILIKE ${p})`);
  }
  if (restricted) {
    where.push('project IS NOT NULL');
    if (hidden.length > 0) {
      const h = param(hidden);
      where.push(
        `project <> ALL(${h}::text[]) AND (other_projects IS NULL OR NOT other_projects && ${h}::text[])`,
      );
    }
  }
  return where;
}

/**
 * The page of a search filtering an indexed column, read value by value from that column's index in the
 * answer's order and merged, the other filters tested on its rows (Postgres reads `column = ANY(…)` as one set
 * whose order the index does not give, and would walk the whole log's time index instead, testing each row);
 * null for free text, an `id` filter or no indexed one. The values are deduplicated, as `= ANY` does.
 */
function pageByValue(
  search: EventSearch,
  restricted: boolean,
  hidden: string[],
): { text: string; values: unknown[] } | null {
  if (search.query !== null || search.in.some((g) => g.column === 'id')) return null;
  // the filter read from its index: the likeliest to be narrow; the others are tested on its rows
  const f = ORDERED_BY_VALUE.map((c) => search.in.find((g) => g.column === c)).find((g) => g !== undefined);
  if (f === undefined) return null;
  const numeric = f.column === 'created_by_user_id';
  const distinct: unknown[] = numeric ? [...new Set(f.values.map(Number))] : [...new Set(f.values)];
  if (distinct.length === 0 || distinct.length > MERGED_VALUES_MAX) return null;
  const values: unknown[] = [];
  const param = (v: unknown) => `$${values.push(v)}`;
  const rest = searchConditions(
    { ...search, in: search.in.filter((g) => g !== f), query: null },
    restricted,
    hidden,
    param,
  );
  const order = 'ORDER BY created_at DESC, id DESC';
  const page = `LIMIT ${param(search.limit)} OFFSET ${param(search.offset)}`;
  const type = numeric ? 'bigint' : 'text';
  if (distinct.length === 1)
    return {
      text: `SELECT body FROM event_log WHERE ${f.column} = ${param(distinct[0])}::${type} AND ${rest.join(' AND ')}
             ${order} ${page}`,
      values,
    };
  // each value's first limit + offset events, merged in the answer's order
  const upTo = param(String(BigInt(search.limit) + BigInt(search.offset)));
  const branches = distinct.map(
    (v) => `(SELECT body, created_at, id FROM event_log WHERE ${f.column} = ${param(v)}::${type}
              AND ${rest.join(' AND ')} ${order} LIMIT ${upTo}::bigint)`,
  );
  return { text: `SELECT body FROM (${branches.join(' UNION ALL ')}) u ${order} ${page}`, values };
}

/** The list's JSON array elements from the stored bodies (in the list's order). */
export const wireEvents = (bodies: string[]): string => bodies.map(wireFromStored).join(',');
const wireList = wireEvents;

/**
 * Reads of the event log. Each event's body is stored as the projector received it; its wire JSON (the
 * reference's key order and defaults) is rendered here, once per list the api builds: the api keeps the
 * lists it serves until the projector changes them, so the projector's ingest, not the read, avoids the
 * second serialisation. Rows come back as plain text arrays; named statements are planned once per connection.
 */
export class EventLogReadModel {
  /** The trigrams of a sample of the stored search texts (search-fragment.logic.ts), and when it was read. */
  private sample: { at: number; value: TrigramSample } | null = null;
  private sampling: Promise<void> | null = null;

  constructor(private readonly db: ReadPool) {}

  /**
   * One page of the visible events of `scope` created after `from` and up to `to` (both instants in
   * `parseAsOf`'s normal form), oldest first (createdAt, then id), after `cursor`: at most `limit`, as wire JSON,
   * and where the next page starts (null at the end). SDK traffic is never among them. Keyset paging: a page costs
   * its own rows, however many events the range holds.
   */
  async eventsBetween(
    scope: EventScope,
    from: string,
    to: string,
    hidden: string[],
    limit: number,
    cursor: EventPageCursor | null = null,
  ): Promise<{ eventsJson: string; count: number; next: EventPageCursor | null }> {
    const values: unknown[] = [from, hidden, to, limit + 1];
    const where = [`created_at > $1::timestamptz`, `created_at <= $3::timestamptz`, VISIBLE, NOT_SDK];
    if (cursor) {
      values.push(cursor.at, cursor.id);
      where.push(afterCursor('>', '$5', '$6'));
    }
    const param = (v: unknown) => `$${values.push(v)}`;
    const page = (conditions: string[]) =>
      `SELECT body, created_at, id FROM event_log WHERE ${[...where, ...conditions].join(' AND ')}
        ORDER BY created_at, id LIMIT $4`;
    let text: string;
    if (scope.kind === 'project') {
      // the project's own events (its index in the answer's order) and the moves naming it as another project
      // (the moves' own index; other_projects never holds the event's own), each read a page at most, merged:
      // not one scan of the range's events filtered by either
      const p = param(scope.projectId);
      text = `(${page([`project = ${p}`])}) UNION ALL (${page([
        `other_projects IS NOT NULL`,
        `${p} = ANY(other_projects)`,
      ])})`;
    } else if (scope.kind === 'flag') {
      text = page([`feature_name = ${param(scope.featureName)}`]);
    } else if (scope.kind === 'identity') {
      const u = param(scope.userId);
      text = page([
        `type = ANY(${param(scope.types)}::text[])`,
        `(created_by_user_id = ${u}
          OR jsonb_path_exists(body::jsonb, 'strict $.** ? (@.userId == $u || @.user.id == $u)', jsonb_build_object('u', ${u}::int))
          OR (type LIKE 'user-%' AND to_jsonb(${u}::int) IN (body::jsonb #> '{data,id}', body::jsonb #> '{preData,id}')))`,
      ]);
    } else {
      text = page([]);
    }
    const rows = await this.db.pool().query<{ body: string; at: string; id: string }>(
      // ordered by the columns, qualified: a bare `id` would name the output's text
      `SELECT body, ${CURSOR_COLUMNS}
         FROM (${text}) e ORDER BY e.created_at, e.id LIMIT $4`,
      values,
    );
    const kept = rows.rows.slice(0, limit);
    const last = kept.at(-1);
    return {
      eventsJson: wireEvents(kept.map((r) => r.body)),
      count: kept.length,
      next: rows.rows.length > limit && last ? { at: last.at, id: last.id } : null,
    };
  }

  /**
   * One page of a flag's visible events, newest first, after `cursor` (keyset on the list's order, so a
   * flag of 100k events is read a page at a time); the total with the first page only.
   */
  async eventPage(
    featureName: string,
    hidden: string[],
    cursor: EventPageCursor | null,
    limit: number,
  ): Promise<EventPage> {
    const pool = this.db.pool();
    const values: unknown[] = [featureName, hidden, limit + 1];
    const after = cursor ? `AND ${afterCursor('<', '$4', '$5')}` : '';
    if (cursor) values.push(cursor.at, cursor.id);
    const rows = await pool.query<{ body: string; at: string; id: string }>(
      // ordered by the columns, qualified: a bare `id` would name the output's text ("99" after "100")
      `SELECT body, ${CURSOR_COLUMNS} FROM event_log l
        WHERE feature_name = $1 AND ${VISIBLE} ${after} ORDER BY l.created_at DESC, l.id DESC LIMIT $3`,
      values,
    );
    const page = rows.rows.slice(0, limit);
    const last = page.at(-1);
    const total = cursor
      ? null
      : Number(
          (
            await pool.query<{ n: string }>(
              `SELECT count(*) AS n FROM event_log WHERE feature_name = $1 AND ${VISIBLE}`,
              [featureName, hidden],
            )
          ).rows[0].n,
        );
    return {
      eventsJson: page.map((r) => wireFromStored(r.body)).join(','),
      total,
      next: rows.rows.length > limit && last ? { at: last.at, id: last.id } : null,
    };
  }

  /**
   * Every event of the flag (exact, case-sensitive name), leaving out those naming a `hidden` project; with
   * `at`, only those created up to that instant (`parseAsOf`'s normal form).
   */
  async eventsOfFlag(
    featureName: string,
    hidden: string[] = [],
    at: string | null = null,
  ): Promise<FlagEventList> {
    return (await this.firstEventsOfFlag(featureName, hidden, Number.MAX_SAFE_INTEGER, at))!;
  }

  /**
   * As `eventsOfFlag` when the flag has at most `limit` events (one statement); null when it has more, for
   * the caller to stream them (`openEventsOfFlag`) instead of holding them all.
   */
  async firstEventsOfFlag(
    featureName: string,
    hidden: string[],
    limit: number,
    at: string | null = null,
  ): Promise<FlagEventList | null> {
    const bodies = await this.storedEventsOfFlag(featureName, hidden, limit, at);
    return bodies && { total: bodies.length, eventsJson: wireList(bodies) };
  }

  /**
   * The stored bodies of the flag's events (render them with `wireEvents`) when it has at most `limit` (one
   * named statement, planned once per connection); null when it has more. With `at`: as of that instant.
   */
  async storedEventsOfFlag(
    featureName: string,
    hidden: string[],
    limit: number,
    at: string | null = null,
  ): Promise<string[] | null> {
    // Postgres text cannot hold U+0000, so no stored flag has it in its name (the projector rejects them)
    if (featureName.includes('\u0000')) return [];
    const rows = Math.min(limit, Number.MAX_SAFE_INTEGER - 1) + 1;
    const r = await this.db.pool().query<string[]>(
      at === null
        ? {
            name: 'flaglens-events-of-flag',
            text: `${EVENTS_OF_FLAG} LIMIT $3`,
            values: [featureName, hidden, rows],
            rowMode: 'array',
          }
        : {
            name: 'flaglens-events-of-flag-at',
            text: `${EVENTS_OF_FLAG_AT} LIMIT $4`,
            values: [featureName, hidden, at, rows],
            rowMode: 'array',
          },
    );
    if (r.rows.length > limit) return null;
    return r.rows.map((row) => row[0]);
  }

  /**
   * `storedEventsOfFlag` of several flags for a caller who may see every project, in one named statement:
   * for each name (in order), its stored bodies when it has at most `limit` events, else null.
   */
  async storedEventsOfFlags(featureNames: readonly string[], limit: number): Promise<(string[] | null)[]> {
    // Postgres text cannot hold U+0000: no stored flag has it in its name
    const names = featureNames.map((n) => (n.includes('\u0000') ? '' : n));
    const r = await this.db.pool().query<[number, string]>({
      name: 'flaglens-events-of-flags',
      text: EVENTS_OF_FLAGS,
      values: [names, Math.min(limit, Number.MAX_SAFE_INTEGER - 1) + 1],
      rowMode: 'array',
    });
    const lists: string[][] = names.map(() => []);
    for (const [n, body] of r.rows) lists[n - 1].push(body);
    return lists.map((bodies, i) =>
      featureNames[i].includes('\u0000') ? [] : bodies.length > limit ? null : bodies,
    );
  }

  /**
   * The flag's events as a cursor on `client` (which it puts in a read-only, repeatable-read transaction, so
   * every page is of one snapshot), as of `at` when given: `next(n)` gives the next page's stored bodies (none when done; render
   * them with `wireEvents`), each page a statement of its own (the pool's statement timeout applies to a
   * page, not to the whole list). `close()` ends the transaction.
   */
  async openEventsOfFlag(
    client: PoolClient,
    featureName: string,
    hidden: string[],
    at: string | null = null,
  ): Promise<{ next(n: number): Promise<string[]>; close(): Promise<void> }> {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      await client.query(
        at === null
          ? {
              text: `DECLARE flaglens_flag_events NO SCROLL CURSOR FOR ${EVENTS_OF_FLAG}`,
              values: [featureName, hidden],
            }
          : {
              text: `DECLARE flaglens_flag_events NO SCROLL CURSOR FOR ${EVENTS_OF_FLAG_AT}`,
              values: [featureName, hidden, at],
            },
      );
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
    let open = true;
    return {
      next: async (n) => {
        const r = await client.query<string[]>({
          text: `FETCH ${Math.max(1, Math.floor(n))} FROM flaglens_flag_events`,
          rowMode: 'array',
        });
        return r.rows.map((row) => row[0]);
      },
      close: async () => {
        if (!open) return;
        open = false;
        await client.query('ROLLBACK');
      },
    };
  }

  /**
   * The newest `limit` events of the whole instance (but those naming a `hidden` project), and how many there
   * are (summed from `event_counts`, not counted over the log).
   */
  async latestEvents(limit: number, hidden: string[] = []): Promise<FlagEventList> {
    const r = await this.db.pool().query<{ total: string; bodies: string[] | null }>({
      name: 'flaglens-latest-events',
      text: `SELECT (SELECT COALESCE(sum(n), 0)::bigint FROM event_counts WHERE NOT names && $2::text[]) AS total,
                    (SELECT array_agg(body ORDER BY created_at DESC, id DESC)
                       FROM (SELECT body, created_at, id FROM event_log WHERE ${VISIBLE}
                              ORDER BY created_at DESC, id DESC LIMIT $1) t) AS bodies`,
      values: [limit, hidden],
    });
    const bodies = r.rows[0]?.bodies ?? [];
    return { total: Number(r.rows[0]?.total ?? 0), eventsJson: wireList(bodies) };
  }

  /**
   * One page of the event search (`search`: event-search.logic.ts) and how many events match, as Unleash 8.2.0
   * answers it: `created_at desc, id desc`. `restricted`: a caller who is not a root Admin, who sees only
   * events that have a project (and none naming a `hidden` one). Stored bodies, newest first (render them
   * with `wireEvents`). How each part is read: docs/performance-reads.md, "Event search".
   */
  async searchEvents(
    search: EventSearch,
    restricted: boolean,
    hidden: string[] = [],
  ): Promise<{ bodies: string[]; total: number }> {
    const values: unknown[] = [];
    const param = (v: unknown) => `$${values.push(v)}`;
    const where = searchConditions(search, restricted, hidden, param);
    if (search.query !== null) {
      // one trigram index over the three texts finds the candidates, asked for the piece of the query whose
      // trigrams are rarest (search-fragment.logic.ts): each text is a substring of their join and the piece a
      // substring of the query, so nothing that matches is missed; the three ILIKEs then decide exactly as the
      // reference does
      where.push(`${SEARCH_TEXT} ILIKE ${param(indexPattern(search.query, await this.trigramSample()))}`);
    }
    const filter = `WHERE ${where.join(' AND ')}`;
    const pool = this.db.pool();
    if (search.query !== null) {
      // free text: the matching rows are found once (by the trigram index, never by walking the order's
      // index and testing each row), counted, and the page's 50 bodies read by id
      const r = await pool.query<{ total: string; bodies: string[] | null }>({
        text: `WITH m AS MATERIALIZED (SELECT id, created_at FROM event_log ${filter})
               SELECT (SELECT count(*) FROM m) AS total,
                      (SELECT array_agg(e.body ORDER BY p.created_at DESC, p.id DESC)
                         FROM (SELECT id, created_at FROM m ORDER BY created_at DESC, id DESC
                                LIMIT ${param(search.limit)} OFFSET ${param(search.offset)}) p
                         JOIN event_log e ON e.id = p.id) AS bodies`,
        values,
      });
      return { bodies: r.rows[0].bodies ?? [], total: Number(r.rows[0].total) };
    }
    const counted = countedTotal(search, restricted, hidden);
    const pageValues = [...values];
    const page = pool.query<string[]>({
      ...(pageByValue(search, restricted, hidden) ?? {
        text: `SELECT body FROM event_log ${filter} ORDER BY created_at DESC, id DESC
               LIMIT $${pageValues.push(search.limit)} OFFSET $${pageValues.push(search.offset)}`,
        values: pageValues,
      }),
      rowMode: 'array',
    });
    const countAll = () =>
      pool.query<{ n: string }>({ text: `SELECT count(*) AS n FROM event_log ${filter}`, values });
    const [rows, total] = await Promise.all([
      page,
      counted
        ? pool
            .query<{ n: string | null }>(counted)
            .then(async (r) => r.rows[0].n ?? (await countAll()).rows[0].n)
        : countAll().then((r) => r.rows[0].n),
    ]);
    return { bodies: rows.rows.map((r) => r[0]), total: Number(total) };
  }

  /**
   * The trigram sample the free-text search picks its index piece by: read on the first search, then again in
   * the background once it is SAMPLE_TTL_MS old; null while none could be read (the whole query is asked for).
   */
  private async trigramSample(): Promise<TrigramSample | null> {
    if (this.sample === null || Date.now() - this.sample.at > SAMPLE_TTL_MS) {
      this.sampling ??= this.readSample().finally(() => (this.sampling = null));
      if (this.sample === null) await this.sampling;
    }
    return this.sample?.value ?? null;
  }

  /** A few thousand stored texts, from random pages of the log (a share of its pages by its row estimate). */
  private async readSample(): Promise<void> {
    try {
      const pool = this.db.pool();
      const size = await pool.query<{ n: number | null }>(
        `SELECT reltuples::float8 AS n FROM pg_class WHERE oid = to_regclass('event_log')`,
      );
      const rows = size.rows[0]?.n ?? -1;
      const percent = rows > 0 ? Math.min(100, (100 * 2 * SAMPLE_ROWS) / rows) : 100;
      const r = await pool.query<string[]>({
        text: `SELECT ${SEARCH_TEXT} FROM event_log TABLESAMPLE SYSTEM ($1) WHERE ${NOT_SDK} LIMIT $2`,
        values: [percent, SAMPLE_ROWS],
        rowMode: 'array',
      });
      this.sample = { at: Date.now(), value: trigramSample(r.rows.map((row) => row[0])) };
    } catch {
      // no sample: the search asks the index for the whole query, as it would without one
    }
  }

  /**
   * Everyone who created events, as Unleash 8.2.0's `GET /api/admin/event-creators`: one row per
   * `created_by_user_id` (ascending, the events without one last, as id 0), named by the user's name (a
   * deleted user's with `(Deleted)` appended), else by the `createdBy` of their first event, the system
   * user and the admin token by their fixed names; rows without any name are left out. Read by a skip scan
   * of the index on `created_by_user_id` (one probe per creator, not a pass over the log).
   */
  async eventCreators(): Promise<{ id: number; name: string }[]> {
    const r = await this.db
      .pool()
      .query<{ id: string | null; name: string | null; username: string | null; email: string | null }>({
        name: 'flaglens-event-creators',
        text: `WITH RECURSIVE ids AS (
               (SELECT created_by_user_id AS uid FROM event_log WHERE created_by_user_id IS NOT NULL
                   AND ${NOT_SDK} ORDER BY created_by_user_id LIMIT 1)
               UNION ALL
               SELECT (SELECT created_by_user_id FROM event_log WHERE created_by_user_id > ids.uid
                          AND ${NOT_SDK} ORDER BY created_by_user_id LIMIT 1)
                 FROM ids WHERE ids.uid IS NOT NULL),
             creators AS (
               SELECT uid, 0 AS o FROM ids WHERE uid IS NOT NULL
               UNION ALL
               SELECT NULL, 1 WHERE EXISTS (SELECT 1 FROM event_log WHERE created_by_user_id IS NULL AND ${NOT_SDK}))
             SELECT c.uid AS id,
                    CASE WHEN c.uid = -1337 THEN 'Unleash System' WHEN c.uid = -42 THEN 'Unleash Admin Token'
                         ELSE COALESCE(CASE WHEN u.deleted THEN u.name || '(Deleted)' ELSE u.name END, e.created_by)
                    END AS name,
                    CASE WHEN u.deleted THEN NULL ELSE u.username END AS username,
                    CASE WHEN u.deleted THEN NULL ELSE u.email END AS email
               FROM creators c
               LEFT JOIN identity_users u ON u.id = c.uid
               CROSS JOIN LATERAL (SELECT COALESCE(
                   (SELECT created_by FROM event_log WHERE created_by_user_id = c.uid AND ${NOT_SDK}
                     ORDER BY created_at, id LIMIT 1),
                   (SELECT created_by FROM event_log WHERE c.uid IS NULL AND created_by_user_id IS NULL AND ${NOT_SDK}
                     ORDER BY created_at, id LIMIT 1)) AS created_by) e
              ORDER BY c.o, c.uid`,
      });
    return r.rows
      .filter((row) => row.name || row.username || row.email)
      .map((row) => ({ id: Number(row.id), name: String(row.name || row.username || row.email) }));
  }

  /**
   * The Unleash release the topic last said (`unleash_release`: the release of the highest event id whose
   * message carried it; null when none did) and the one flaglens answers as (that one when supported, else
   * the newest supported). Where the supported releases answer a question differently, answer as this.
   */
  async unleashRelease(): Promise<{ release: string | null; answeringAs: UnleashRelease }> {
    const r = await this.db.pool().query<{ release: string }>({
      name: 'flaglens-unleash-release',
      text: `SELECT release FROM unleash_release`,
    });
    const release = r.rows[0]?.release ?? null;
    return { release, answeringAs: answeringRelease(release) };
  }
}
