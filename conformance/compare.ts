import { isDeepStrictEqual } from 'node:util';

/**
 * Field-by-field comparison of flaglens's answers with the real Unleash's. A difference is either explained
 * (flaglens differs on purpose; the reason names docs/design.md or docs/deviations.md) or unexplained (a failure).
 */
export interface Difference {
  what: string;
  field: string;
  unleash: unknown;
  flaglens: unknown;
  reason?: string;
}

export class Tally {
  /** field key -> counts */
  readonly rows = new Map<
    string,
    { matched: number; explained: number; unexplained: number; reasons: Set<string> }
  >();
  readonly differences: Difference[] = [];

  private row(key: string) {
    let r = this.rows.get(key);
    if (!r) this.rows.set(key, (r = { matched: 0, explained: 0, unexplained: 0, reasons: new Set() }));
    return r;
  }

  match(group: string, field: string): void {
    this.row(`${group} | ${field}`).matched++;
  }

  differ(group: string, d: Difference): void {
    const r = this.row(`${group} | ${d.field}`);
    if (d.reason) {
      r.explained++;
      r.reasons.add(d.reason);
    } else r.unexplained++;
    this.differences.push(d);
  }

  /** Fields that matched, over every row. */
  get matched(): number {
    let n = 0;
    for (const r of this.rows.values()) n += r.matched;
    return n;
  }

  get unexplained(): Difference[] {
    return this.differences.filter((d) => !d.reason);
  }

  /** A Markdown table: group, field, matched, explained (with reasons), unexplained. */
  table(): string {
    const lines = [
      '| endpoint | field | matched | explained differences | unexplained |',
      '| --- | --- | ---: | --- | ---: |',
    ];
    for (const [key, r] of [...this.rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const [group, field] = key.split(' | ');
      const explained = r.explained ? `${r.explained}: ${[...r.reasons].join('; ')}` : '0';
      lines.push(`| ${group} | ${field} | ${r.matched} | ${explained} | ${r.unexplained} |`);
    }
    return lines.join('\n');
  }
}

/**
 * Differences grouped by field: how many, and the first one's values (a newer release's new field shows as one
 * line, not one per event).
 */
export function summarize(differences: Difference[], width = 300): string[] {
  const groups = new Map<string, Difference[]>();
  for (const d of differences) {
    const g = groups.get(d.field);
    if (g) g.push(d);
    else groups.set(d.field, [d]);
  }
  return [...groups.entries()].map(([field, ds]) => {
    const d = ds[0];
    const show = (x: unknown) => (x === undefined ? '(absent)' : JSON.stringify(x).slice(0, width));
    return `- ${field}: ${ds.length} difference(s); e.g. ${d.what}: Unleash ${show(d.unleash)} / flaglens ${show(d.flaglens)}`;
  });
}

type Event = Record<string, unknown> & { id: number; createdAt: string; type: string };

export interface EventListContext {
  flag: string;
  /** Types the contract knows (api-spec part 6); others are dead-lettered by default. */
  knownType: (type: string) => boolean;
  /** Events of the flag in Unleash's table whose type is outside the contract. */
  unknownTotal: number;
  /** How many events Unleash lists (6.x: its newest 100; 7.0 and later: its newest 50). */
  cap?: number;
  /** The release compared (named in the reasons). */
  release?: string;
}

/**
 * Fields a newer Unleash release adds, which flaglens answers for every release (an older client ignores a key
 * it does not know): where the release compared does not answer the key, flaglens's extra key is explained.
 */
const NEWER_RELEASE_FIELDS: Record<string, string> = {
  groups: '8.x',
  canChangePassword: '8.x',
  technicalDebt: '7.x',
  linkTemplates: '7.x',
};
const newerFieldReason = (k: string, u: Record<string, unknown>): string | undefined =>
  k in NEWER_RELEASE_FIELDS && !(k in u)
    ? `a field Unleash ${NEWER_RELEASE_FIELDS[k]} adds, answered for every release (docs/deviations.md, "Answers across Unleash releases")`
    : undefined;
/** The keys in order, without the newer-release keys the release compared does not answer. */
const keyOrder = (o: Record<string, unknown>, u: Record<string, unknown>): string[] =>
  Object.keys(o).filter((k) => !newerFieldReason(k, u));

/** The event fields every release answers, compared one by one (a field only one side has is compared too). */
const EVENT_KEYS = [
  'id',
  'type',
  'createdBy',
  'createdAt',
  'createdByUserId',
  'data',
  'preData',
  'tags',
  'featureName',
  'project',
  'environment',
];

const REASON_UNKNOWN_TYPE =
  'type outside the contract: dead-lettered only with ACCEPT_UNKNOWN_EVENT_TYPES=false (docs/source-connector.md)';

/**
 * The event list of one flag: Unleash answers its newest 100 (6.x: `created_at` desc, ties unordered; 7.0 and
 * later: its newest 50, `created_at` desc, `id` desc) and the total; flaglens answers every event (`createdAt`
 * desc, then `id` desc; docs/deviations.md, "Event lists and errors"). Events of types outside the contract are
 * explained differences.
 */
export function compareEventList(
  t: Tally,
  u: { events: Event[]; totalEvents: number },
  f: { events: Event[]; totalEvents: number },
  ctx: EventListContext,
): void {
  const g = 'GET /api/admin/events/{flag}';
  const what = `flag ${ctx.flag}`;
  const cap = ctx.cap ?? 100;
  const unknown = u.events.filter((e) => !ctx.knownType(e.type));
  // the total: flaglens's = Unleash's minus the dead-lettered events of unknown types
  const expectedTotal = u.totalEvents - ctx.unknownTotal;
  if (f.totalEvents === u.totalEvents) t.match(g, 'totalEvents');
  else
    t.differ(g, {
      what,
      field: 'totalEvents',
      unleash: u.totalEvents,
      flaglens: f.totalEvents,
      reason:
        f.totalEvents === expectedTotal && expectedTotal !== u.totalEvents ? REASON_UNKNOWN_TYPE : undefined,
    });
  if (f.events.length === f.totalEvents) t.match(g, 'all events listed (flaglens lists every event)');
  else
    t.differ(g, {
      what,
      field: 'all events listed (flaglens lists every event)',
      unleash: u.totalEvents,
      flaglens: f.events.length,
    });
  if (u.events.length === Math.min(cap, u.totalEvents)) t.match(g, `newest ${cap} (Unleash)`);
  else t.differ(g, { what, field: `newest ${cap} (Unleash)`, unleash: u.events.length, flaglens: null });
  // the one deviation every long list shows: Unleash cuts it at its cap, flaglens lists every event
  if (u.events.length === f.events.length) t.match(g, 'number of events listed');
  else
    t.differ(g, {
      what,
      field: 'number of events listed',
      unleash: u.events.length,
      flaglens: f.events.length,
      reason:
        u.events.length === cap && f.events.length === f.totalEvents
          ? `Unleash${ctx.release ? ` ${ctx.release}` : ''} lists its newest ${cap}; flaglens lists every event, as the API document says (docs/deviations.md, "Event lists and errors")`
          : undefined,
    });

  // every event Unleash lists is in flaglens's list, identical in every key
  const byId = new Map(f.events.map((e) => [e.id, e]));
  for (const ue of u.events) {
    const fe = byId.get(ue.id);
    if (!fe) {
      t.differ(g, {
        what: `${what} event ${ue.id}`,
        field: 'event present',
        unleash: ue.type,
        flaglens: null,
        reason: ctx.knownType(ue.type) ? undefined : REASON_UNKNOWN_TYPE,
      });
      continue;
    }
    t.match(g, 'event present');
    const extra = [...new Set([...Object.keys(ue), ...Object.keys(fe)])].filter(
      (k) => !EVENT_KEYS.includes(k),
    );
    for (const k of [...EVENT_KEYS, ...extra]) {
      if (isDeepStrictEqual(ue[k], fe[k])) t.match(g, `event.${k}`);
      else
        t.differ(g, { what: `${what} event ${ue.id}`, field: `event.${k}`, unleash: ue[k], flaglens: fe[k] });
    }
    if (isDeepStrictEqual(Object.keys(ue), Object.keys(fe))) t.match(g, 'event key order');
    else
      t.differ(g, {
        what: `${what} event ${ue.id}`,
        field: 'event key order',
        unleash: Object.keys(ue),
        flaglens: Object.keys(fe),
      });
  }
  // order: flaglens's first 100 (of the known types) are Unleash's newest 100, up to ties in createdAt
  const known = u.events.filter((e) => ctx.knownType(e.type));
  const n = known.length;
  const head = f.events.slice(0, n);
  const boundary = known.length ? known[known.length - 1].createdAt : null;
  const strictlyNewer = (e: Event) => boundary === null || e.createdAt > boundary;
  const uNewer = new Set(known.filter(strictlyNewer).map((e) => e.id));
  const fNewer = new Set(head.filter(strictlyNewer).map((e) => e.id));
  const sameNewer = isDeepStrictEqual([...uNewer].sort(), [...fNewer].sort());
  const tiesOk = known
    .filter((e) => !strictlyNewer(e))
    .every((e) => f.events.some((x) => x.id === e.id && x.createdAt === e.createdAt));
  const sortedDesc = head.every(
    (e, i) =>
      i === 0 ||
      head[i - 1].createdAt > e.createdAt ||
      (head[i - 1].createdAt === e.createdAt && head[i - 1].id > e.id),
  );
  const orderField = `first ${cap} = Unleash newest ${cap} (ties by id desc)`;
  if (sameNewer && tiesOk && sortedDesc) t.match(g, orderField);
  else
    t.differ(g, {
      what,
      field: orderField,
      unleash: known.map((e) => e.id),
      flaglens: head.map((e) => e.id),
    });
  if (unknown.length) t.match(g, `events of unknown types seen (${unknown.map((e) => e.type).join(', ')})`);
}

/** The profile of one user (projects compared as sets: Unleash does not order them). */
export function compareProfile(
  t: Tally,
  user: string,
  u: Record<string, unknown>,
  f: Record<string, unknown>,
): void {
  const g = 'GET /api/admin/user/profile';
  const fixed = ['rootRole', 'projects', 'subscriptions', 'features'];
  const extra = [...new Set([...Object.keys(u), ...Object.keys(f)])].filter((k) => !fixed.includes(k));
  for (const k of [...fixed, ...extra]) {
    const a = k === 'projects' ? [...((u[k] as string[]) ?? [])].sort() : u[k];
    const b = k === 'projects' ? [...((f[k] as string[]) ?? [])].sort() : f[k];
    if (isDeepStrictEqual(a, b)) t.match(g, k);
    else
      t.differ(g, {
        what: `user ${user}`,
        field: k,
        unleash: u[k],
        flaglens: f[k],
        reason: newerFieldReason(k, u),
      });
  }
  if (isDeepStrictEqual(Object.keys(u), keyOrder(f, u))) t.match(g, 'key order');
  else
    t.differ(g, {
      what: `user ${user}`,
      field: 'key order',
      unleash: Object.keys(u),
      flaglens: Object.keys(f),
    });
}

export interface OverviewContext {
  project: string;
  /** Non-archived flags of the project in Unleash (for first-flag-created). */
  liveFlags: string[];
  /** Time of the instance's first event (flaglens's createdAt of the seeded `default`). */
  firstEventAt: string;
  /** Times of the project's `project-created` and latest `project-archived` events in Unleash's table. */
  createdEventAt?: string;
  archivedEventAt?: string;
  /** Events of the project in the current window whose type is outside the contract. */
  unknownActivity: number;
}

const REASON_EVENT_TIME =
  'the project\'s event time; the reference stamps its row a few ms earlier (semantics §7.4, docs/deviations.md, "Project overview")';
const REASON_FROZEN =
  'an archived project is frozen at its archive instant, the reference at its last job run (docs/deviations.md, "Project overview")';
const REASON_UNKNOWN_ACTIVITY =
  'events of types outside api-spec part 6 count as no activity (docs/design.md#the-event-contract, docs/deviations.md, "Project overview")';

/** Which flag `first-flag-created` names, where the reference leaves it to the database. */
const REASON_FIRST_FLAG =
  'first-flag-created names the earliest-created flag; the reference has no ORDER BY (docs/deviations.md)';

/** The overview of one project, `updatedAt` aside. */
export function compareOverview(
  t: Tally,
  u: Record<string, unknown>,
  f: Record<string, unknown>,
  ctx: OverviewContext,
): void {
  const g = 'GET /api/admin/projects/{id}/overview';
  const what = `project ${ctx.project}`;
  const keys = new Set([...Object.keys(u), ...Object.keys(f)]);
  keys.delete('updatedAt');
  for (const k of keys) {
    if (k === 'stats') {
      const us = (u.stats ?? {}) as Record<string, unknown>;
      const fs = (f.stats ?? {}) as Record<string, unknown>;
      for (const s of new Set([...Object.keys(us), ...Object.keys(fs)])) {
        if (isDeepStrictEqual(us[s], fs[s])) {
          t.match(g, `stats.${s}`);
          continue;
        }
        let reason: string | undefined;
        if (u.archivedAt) reason = REASON_FROZEN;
        else if (s === 'projectActivityCurrentWindow' && Number(fs[s]) + ctx.unknownActivity === us[s])
          reason = REASON_UNKNOWN_ACTIVITY;
        t.differ(g, { what, field: `stats.${s}`, unleash: us[s], flaglens: fs[s], reason });
      }
      continue;
    }
    let a = u[k];
    let b = f[k];
    if (k === 'featureTypeCounts') {
      // Unleash has no ORDER BY; flaglens sorts by type (docs/deviations.md)
      const byType = (x: unknown) =>
        [...((x as { type: string }[]) ?? [])].sort((p, q) => (p.type < q.type ? -1 : 1));
      a = byType(a);
      b = byType(b);
    }
    if (isDeepStrictEqual(a, b)) {
      t.match(g, k);
      continue;
    }
    let reason: string | undefined;
    if (k === 'createdAt' && ctx.project === 'default' && b === ctx.firstEventAt)
      reason =
        'the seeded default project has no creation event: the time of the first event (docs/deviations.md, "Project overview")';
    const near = (x: unknown, y: unknown) =>
      typeof x === 'string' && typeof y === 'string' && Math.abs(Date.parse(x) - Date.parse(y)) < 1000;
    if (k === 'createdAt' && b === ctx.createdEventAt && near(a, b)) reason = REASON_EVENT_TIME;
    if (k === 'archivedAt' && b === ctx.archivedEventAt && near(a, b)) reason = REASON_EVENT_TIME;
    const ua = a as { status?: string; feature?: string } | undefined;
    const fb = b as { status?: string; feature?: string } | undefined;
    if (
      k === 'onboardingStatus' &&
      ua?.status === 'first-flag-created' &&
      fb?.status === 'first-flag-created' &&
      ctx.liveFlags.includes(ua.feature ?? '') &&
      ctx.liveFlags.includes(fb.feature ?? '')
    )
      reason = REASON_FIRST_FLAG;
    reason ??= newerFieldReason(k, u);
    t.differ(g, { what, field: k, unleash: u[k], flaglens: f[k], reason });
  }
}

/** Every leaf of a JSON answer by its path (`a.b.c`); an array is one leaf. */
function leaves(v: unknown, path = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v)) leaves(x, path ? `${path}.${k}` : k, out);
  } else out.set(path, v);
  return out;
}

/**
 * An answer of a route Unleash 8.2.0 added (the project status, the personal dashboard), field by field (an array
 * is one field), and its keys' order.
 */
export function compareAnswer(
  t: Tally,
  g: string,
  what: string,
  u: Record<string, unknown>,
  f: Record<string, unknown>,
): void {
  const [ul, fl] = [leaves(u), leaves(f)];
  for (const k of new Set([...ul.keys(), ...fl.keys()])) {
    if (isDeepStrictEqual(ul.get(k), fl.get(k))) t.match(g, k);
    else
      t.differ(g, {
        what,
        field: k,
        unleash: ul.get(k),
        flaglens: fl.get(k),
        // the personal dashboard's project details: the same onboarding as the overview's
        reason: k === 'onboardingStatus.feature' ? REASON_FIRST_FLAG : undefined,
      });
  }
  if (isDeepStrictEqual([...ul.keys()], [...fl.keys()])) t.match(g, 'key order');
  else t.differ(g, { what, field: 'key order', unleash: [...ul.keys()], flaglens: [...fl.keys()] });
}
