import type { FlagEvent } from '@flaglens/contract';
import { prng } from './generate-history';

/**
 * A big Unleash installation's history, generated as a stream (bench/scale.ts): by default 200 projects
 * (`default` and 199 created), 5,000 flags, 2,000 users and a group per 20 of them, over 3 years ending at
 * LARGE_INSTALLATION_END, in `events` events exactly. Same options → same events. Ids increase with time and
 * `createdAt` never decreases: event i (from 0) takes the i-th of `events` equal slices of the span.
 *
 * What happens in it:
 * - users, groups, projects and flags are created over the span (the first ones at its start); a project's
 *   creator becomes its Owner; a flag is created with a strategy in production and enabled in development, the
 *   three events in one transaction (`groupType`/`groupId`, as Unleash 7+ writes them);
 * - HOT_FLAGS flags of `default` (`hot-flag-<n>`) take a fixed share of the events each (51,000 at 10M), all
 *   toggles, strategy and variant changes, so their event lists have exactly `hotFlagEvents` events;
 * - the other flags are toggled, given and changed strategies, tagged and untagged, marked stale and not,
 *   their metadata and variants changed (the older flags more often), and some archived, revived, deleted
 *   (after their archival) or moved to another project, each at a time planned when it is created;
 * - SDK usage: `client-metrics` buckets of several flags of a project, by 24 applications in both
 *   environments, and `client-register` events;
 * - memberships: users and groups added to and removed from projects, their roles changed; users' root roles
 *   changed, a few users deleted; favourites of projects and flags; projects updated.
 * The state it keeps is that of the installation (its flags, users, projects and members), never its events:
 * 10M events stream in flat memory, in chunks of `chunk` events.
 */

/** The instant the history ends at unless told. */
export const LARGE_INSTALLATION_END = '2026-11-22T09:01:00.000Z';
/** Flags that take a large share of the events each. */
export const HOT_FLAGS = 3;
/** Each hot flag's share of the events (51,000 of 10M). */
export const HOT_FLAG_SHARE = 0.0051;
/**
 * About this share of the users is deleted by the end of a history, however many events it has: a user change
 * (2 of every 100 other events) deletes its user with the chance that gives it, at most USER_DELETE_CHANCE_MAX.
 * A fixed chance per change would delete nearly every user of a long history (1,999 of 2,000 at 10 million events).
 */
export const DELETED_USERS_SHARE = 0.1;
const USER_CHANGE_SHARE = 0.02;
const USER_DELETE_CHANCE_MAX = 0.02;
const ENVS = ['development', 'production'] as const;
const FLAG_TYPES = ['release', 'experiment', 'operational', 'kill-switch', 'permission'];
const APPS = 24;
const TEAMS = 40;
const YEAR_MS = 365.25 * 86_400_000;

export interface LargeInstallationOptions {
  seed: number;
  /** events in all, exactly */
  events: number;
  /** projects, `default` among them (default 200) */
  projects?: number;
  /** flags created, the hot ones among them (default 5,000) */
  flags?: number;
  /** users created (ids 2 to users + 1; the seeded admin is user 1) (default 2,000) */
  users?: number;
  /** the span of the history (default 3) */
  years?: number;
  /** its last instant (default LARGE_INSTALLATION_END) */
  end?: string;
  /** the first event's id (default 1) */
  firstId?: number;
  /** events per chunk yielded (default 5,000) */
  chunk?: number;
}

export interface LargeInstallationSummary {
  seed: number;
  events: number;
  projects: number;
  flags: number;
  users: number;
  groups: number;
  /** the hot flags, each with its number of events */
  hotFlags: { name: string; project: string; events: number }[];
  /** the span: every event's createdAt is within [from, to] */
  from: string;
  to: string;
  firstId: number;
  lastId: number;
}

export const projectIdOf = (i: number): string => (i === 0 ? 'default' : `project-${i}`);
export const flagNameOf = (f: number): string => (f < HOT_FLAGS ? `hot-flag-${f}` : `flag-${f}`);
export const userEmailOf = (id: number): string => `user${id}@example.com`;

interface Resolved {
  seed: number;
  events: number;
  projects: number;
  flags: number;
  users: number;
  groups: number;
  startMs: number;
  endMs: number;
  firstId: number;
  chunk: number;
  /** events of each hot flag, its creation and the two events of that transaction included */
  hotFlagEvents: number;
  /** the chance that a user change deletes its user (DELETED_USERS_SHARE) */
  userDeleteChance: number;
}

function resolve(o: LargeInstallationOptions): Resolved {
  const projects = o.projects ?? 200;
  const flags = o.flags ?? 5000;
  const users = o.users ?? 2000;
  const years = o.years ?? 3;
  const end = o.end ?? LARGE_INSTALLATION_END;
  const endMs = Date.parse(end);
  for (const [name, n, min] of [
    ['events', o.events, 1],
    ['projects', projects, 1],
    ['flags', flags, HOT_FLAGS + 1],
    ['users', users, 1],
  ] as const)
    if (!Number.isInteger(n) || n < min)
      throw new RangeError(`${name} must be a whole number ≥ ${min}, not ${n}`);
  if (!(years > 0)) throw new RangeError(`years must be > 0, not ${years}`);
  if (Number.isNaN(endMs)) throw new RangeError(`end is not an instant: ${end}`);
  const groups = Math.max(1, Math.round(users / 20));
  const hotFlagEvents = Math.max(3, Math.floor(o.events * HOT_FLAG_SHARE));
  // creations and their transactions, and the hot flags' events, leave at least as many slots to the rest
  const planned = users + groups + 2 * (projects - 1) + 3 * flags + HOT_FLAGS * hotFlagEvents;
  if (o.events < 2 * planned)
    throw new RangeError(
      `${o.events} events are too few for ${projects} projects, ${flags} flags and ${users} users: at least ${2 * planned}`,
    );
  return {
    seed: o.seed,
    events: o.events,
    projects,
    flags,
    users,
    groups,
    startMs: endMs - Math.round(years * YEAR_MS),
    endMs,
    firstId: o.firstId ?? 1,
    chunk: o.chunk ?? 5000,
    hotFlagEvents,
    userDeleteChance: Math.min(
      USER_DELETE_CHANCE_MAX,
      (DELETED_USERS_SHARE * users) / (USER_CHANGE_SHARE * o.events),
    ),
  };
}

/** The i-th slot's instant: the slices are equal, each event somewhere in the first 90% of its own. */
const slotMs = (r: Resolved, i: number, jitter: number): number =>
  r.startMs + Math.floor(((i + 0.9 * jitter) * (r.endMs - r.startMs)) / r.events);

/** What `largeInstallation` generates with these options, without generating it. */
export function largeInstallationSummary(o: LargeInstallationOptions): LargeInstallationSummary {
  const r = resolve(o);
  return {
    seed: r.seed,
    events: r.events,
    projects: r.projects,
    flags: r.flags,
    users: r.users,
    groups: r.groups,
    hotFlags: Array.from({ length: HOT_FLAGS }, (_, h) => ({
      name: flagNameOf(h),
      project: 'default',
      events: r.hotFlagEvents,
    })),
    from: new Date(r.startMs).toISOString(),
    to: new Date(r.endMs).toISOString(),
    firstId: r.firstId,
    lastId: r.firstId + r.events - 1,
  };
}

interface Flag {
  index: number;
  name: string;
  project: string;
  type: string;
  state: 'live' | 'archived' | 'deleted';
  stale: boolean;
  enabled: [boolean, boolean];
  /** strategy ids per environment */
  strategies: [string[], string[]];
  tags: string[];
  /** position in `live` or `archived` */
  at: number;
}

/** Planned changes of a flag's life, by slot. */
interface Planned {
  slot: number;
  seq: number;
  kind: 'archive' | 'revive' | 'delete' | 'move';
  flag: Flag;
}

/** A min-heap of planned changes by slot (then by the order planned). */
class PlanHeap {
  private readonly items: Planned[] = [];
  get size(): number {
    return this.items.length;
  }
  peek(): Planned | undefined {
    return this.items[0];
  }
  private less(a: Planned, b: Planned): boolean {
    return a.slot < b.slot || (a.slot === b.slot && a.seq < b.seq);
  }
  push(p: Planned): void {
    const xs = this.items;
    xs.push(p);
    for (let i = xs.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!this.less(xs[i], xs[parent])) break;
      [xs[i], xs[parent]] = [xs[parent], xs[i]];
      i = parent;
    }
  }
  pop(): Planned | undefined {
    const xs = this.items;
    const top = xs[0];
    const last = xs.pop();
    if (xs.length > 0 && last) {
      xs[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const rr = l + 1;
        let m = i;
        if (l < xs.length && this.less(xs[l], xs[m])) m = l;
        if (rr < xs.length && this.less(xs[rr], xs[m])) m = rr;
        if (m === i) break;
        [xs[i], xs[m]] = [xs[m], xs[i]];
        i = m;
      }
    }
    return top;
  }
}

type Draft = Omit<FlagEvent, 'id' | 'createdAt'>;
type Creation = { slot: number; order: number; kind: 'user' | 'group' | 'project' | 'flag'; index: number };

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The big installation's events, `chunk` at a time, in id order; returns its summary (as
 * `largeInstallationSummary` gives it) when done.
 */
export function* largeInstallation(
  o: LargeInstallationOptions,
): Generator<FlagEvent[], LargeInstallationSummary, undefined> {
  const r = resolve(o);
  const rnd = prng(r.seed);
  const below = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[below(xs.length)];
  /** An index in [0, n), the low ones more likely (the older projects and flags are the busier). */
  const skewed = (n: number, power = 2) => Math.min(n - 1, Math.floor(n * rnd() ** power));
  const hex = (n: number) => {
    let s = '';
    for (let i = 0; i < n; i++) s += below(16).toString(16);
    return s;
  };
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  const ulid = (ms: number) => {
    let s = '';
    for (let i = 9; i >= 0; i--) s += CROCKFORD[Math.floor(ms / 32 ** i) % 32];
    for (let i = 0; i < 16; i++) s += CROCKFORD[below(32)];
    return s;
  };

  // the creations, by slot: users, groups, projects and flags spread over the span, the first ones early
  const creations: Creation[] = [];
  const at = (share: number) => Math.floor(share * r.events);
  for (let u = 0; u < r.users; u++)
    creations.push({ slot: at(0.85 * (u / r.users) ** 1.5), order: 0, kind: 'user', index: u });
  for (let g = 0; g < r.groups; g++)
    creations.push({ slot: at(0.02 + 0.8 * (g / r.groups)), order: 1, kind: 'group', index: g });
  for (let p = 1; p < r.projects; p++)
    creations.push({ slot: at(0.75 * (p / r.projects) ** 1.2), order: 2, kind: 'project', index: p });
  for (let f = 0; f < r.flags; f++)
    creations.push({
      slot: f < HOT_FLAGS ? 0 : at(0.92 * ((f - HOT_FLAGS) / (r.flags - HOT_FLAGS)) ** 1.1),
      order: 3,
      kind: 'flag',
      index: f,
    });
  creations.sort((a, b) => a.slot - b.slot || a.order - b.order || a.index - b.index);
  let nextCreation = 0;

  // the hot flags' events after their transactions: spread evenly up to the last 0.5% of the span
  const hotTotal = HOT_FLAGS * (r.hotFlagEvents - 3);
  const hotFrom = 4 * HOT_FLAGS;
  const hotSlot = (k: number) => hotFrom + Math.floor((k * (0.995 * r.events - hotFrom)) / hotTotal);
  let nextHot = 0;

  const users: number[] = []; // live user ids
  const rootRole = new Map<number, number>();
  const groups: number[][] = []; // members by group (id = index + 1)
  const projects: string[] = ['default'];
  const members = new Map<string, number[]>([['default', []]]);
  const projectGroups = new Map<string, number[]>([['default', []]]);
  const hot: Flag[] = [];
  const live: Flag[] = [];
  const archived: Flag[] = [];
  const plans = new PlanHeap();
  let planSeq = 0;
  const followUps: Draft[] = [];
  let followUpGroup: { groupType: string; groupId: string } | undefined;

  const remove = (xs: Flag[], f: Flag) => {
    const last = xs.pop()!;
    if (last !== f) {
      xs[f.at] = last;
      last.at = f.at;
    }
  };
  const add = (xs: Flag[], f: Flag) => {
    f.at = xs.length;
    xs.push(f);
  };
  const actor = () => {
    const id = users.length > 0 && rnd() < 0.95 ? pick(users) : 1;
    return { createdBy: id === 1 ? 'admin' : userEmailOf(id), createdByUserId: id };
  };
  const draft = (type: string, x: Partial<Draft>): Draft => ({
    type,
    ...actor(),
    environment: null,
    project: null,
    featureName: null,
    data: null,
    preData: null,
    tags: null,
    ...x,
  });
  const tagsOf = (f: Flag) => f.tags.map((value) => ({ type: 'simple', value }));
  const flagBase = (f: Flag) => ({ project: f.project, featureName: f.name, tags: tagsOf(f) });
  const strategyData = (f: Flag, id: string, rollout: number) => ({
    id,
    name: 'flexibleRollout',
    title: null,
    disabled: false,
    sortOrder: 0,
    segments: [],
    constraints:
      rollout % 3 === 0 ? [{ contextName: 'region', operator: 'IN', values: ['eu-west', 'us-east'] }] : [],
    parameters: { rollout: String(rollout), stickiness: 'default', groupId: f.name },
    variants: [],
  });
  const userData = (id: number, role: number) => ({
    id,
    name: `User ${id}`,
    username: `user${id}`,
    email: userEmailOf(id),
    rootRole: role,
  });

  function create(c: Creation, slotAt: number): Draft {
    switch (c.kind) {
      case 'user': {
        const id = c.index + 2;
        const role = rnd() < 0.05 ? 1 : rnd() < 0.7 ? 2 : 3;
        users.push(id);
        rootRole.set(id, role);
        return draft('user-created', { createdBy: 'admin', createdByUserId: 1, data: userData(id, role) });
      }
      case 'group': {
        const id = c.index + 1;
        const initial = users.length === 0 ? [] : Array.from({ length: 1 + below(5) }, () => pick(users));
        const unique = [...new Set(initial)];
        groups.push(unique);
        return draft('group-created', {
          data: {
            id,
            name: `Group ${id}`,
            description: null,
            users: unique.map((u) => ({ user: { id: u } })),
          },
        });
      }
      case 'project': {
        const id = projectIdOf(c.index);
        projects.push(id);
        const by = actor();
        members.set(id, by.createdByUserId === 1 ? [] : [by.createdByUserId]);
        projectGroups.set(id, []);
        if (by.createdByUserId !== 1)
          followUps.push(
            draft('project-user-added', {
              ...by,
              project: id,
              data: { userId: by.createdByUserId, roleId: 4, roleName: 'Owner', email: null },
            }),
          );
        return draft('project-created', {
          ...by,
          project: id,
          data: {
            id,
            name: `Project ${c.index}`,
            description: `The ${c.index}th project`,
            mode: rnd() < 0.1 ? 'private' : 'open',
            defaultStickiness: 'default',
          },
        });
      }
      case 'flag': {
        const isHot = c.index < HOT_FLAGS;
        const f: Flag = {
          index: c.index,
          name: flagNameOf(c.index),
          project: isHot ? 'default' : projects[skewed(projects.length)],
          type: isHot ? 'kill-switch' : pick(FLAG_TYPES),
          state: 'live',
          stale: false,
          enabled: [true, false],
          strategies: [[], [uuid()]],
          tags: [],
          at: 0,
        };
        if (isHot) hot.push(f);
        else {
          add(live, f);
          planLife(f, slotAt);
        }
        const by = actor();
        // in its transaction: a strategy in production, enabled in development
        followUps.push(
          draft('feature-strategy-add', {
            ...by,
            ...flagBase(f),
            environment: 'production',
            data: strategyData(f, f.strategies[1][0], 50),
          }),
          draft('feature-environment-enabled', { ...by, ...flagBase(f), environment: 'development' }),
        );
        return draft('feature-created', {
          ...by,
          ...flagBase(f),
          data: {
            name: f.name,
            description: `Flag ${c.index}`,
            type: f.type,
            project: f.project,
            stale: false,
            impressionData: false,
            archived: false,
          },
        });
      }
    }
  }

  /** When an ordinary flag will be archived (16%), then revived (half of them) or deleted, or moved (10%). */
  function planLife(f: Flag, from: number): void {
    const later = (after: number, within = 1) =>
      after + 1 + Math.floor(rnd() * within * (r.events - after - 1));
    if (rnd() < 0.16) {
      const archive = later(from);
      plans.push({ slot: archive, seq: planSeq++, kind: 'archive', flag: f });
      const next = rnd();
      if (next < 0.5) plans.push({ slot: later(archive, 0.3), seq: planSeq++, kind: 'revive', flag: f });
      else if (next < 0.9) plans.push({ slot: later(archive, 0.5), seq: planSeq++, kind: 'delete', flag: f });
    }
    if (rnd() < 0.1) plans.push({ slot: later(from), seq: planSeq++, kind: 'move', flag: f });
  }

  /** A planned change, or null when it no longer applies (a flag moved or deleted meanwhile). */
  function planned(p: Planned): Draft | null {
    const f = p.flag;
    switch (p.kind) {
      case 'archive':
        if (f.state !== 'live') return null;
        remove(live, f);
        add(archived, f);
        f.state = 'archived';
        return draft('feature-archived', flagBase(f));
      case 'revive':
        if (f.state !== 'archived') return null;
        remove(archived, f);
        add(live, f);
        f.state = 'live';
        return draft('feature-revived', flagBase(f));
      case 'delete':
        if (f.state !== 'archived') return null;
        remove(archived, f);
        f.state = 'deleted';
        return draft('feature-deleted', { ...flagBase(f), preData: { name: f.name, project: f.project } });
      case 'move': {
        const to = projects[below(projects.length)];
        if (f.state !== 'live' || to === f.project) return null;
        const from = f.project;
        f.project = to;
        return draft('feature-project-change', {
          ...flagBase(f),
          data: { newProject: to, oldProject: from },
        });
      }
    }
  }

  /** A change of a live flag: a toggle, a strategy, a variant; the hot ones only these. */
  function flagChange(f: Flag, onlyRollout: boolean): Draft {
    const e = below(2);
    const env = ENVS[e];
    const k = rnd();
    if (k < 0.4) {
      f.enabled[e] = !f.enabled[e];
      return draft(f.enabled[e] ? 'feature-environment-enabled' : 'feature-environment-disabled', {
        ...flagBase(f),
        environment: env,
      });
    }
    const ids = f.strategies[e];
    if (k < 0.85 || onlyRollout) {
      if (ids.length === 0 || (!onlyRollout && rnd() < 0.1 && ids.length < 3)) {
        const id = uuid();
        ids.push(id);
        return draft('feature-strategy-add', {
          ...flagBase(f),
          environment: env,
          data: strategyData(f, id, below(101)),
        });
      }
      const id = pick(ids);
      if (!onlyRollout && rnd() < 0.08) {
        ids.splice(ids.indexOf(id), 1);
        return draft('feature-strategy-remove', {
          ...flagBase(f),
          environment: env,
          preData: strategyData(f, id, below(101)),
        });
      }
      return draft('feature-strategy-update', {
        ...flagBase(f),
        environment: env,
        data: strategyData(f, id, below(101)),
        preData: strategyData(f, id, below(101)),
      });
    }
    return draft('feature-environment-variants-updated', {
      ...flagBase(f),
      environment: env,
      data: {
        variants: ['on', 'off', 'control'].slice(0, 2 + below(2)).map((name) => ({
          name,
          weight: 500,
          weightType: 'variable',
          stickiness: 'default',
          payload: rnd() < 0.3 ? { type: 'string', value: `v${below(10)}` } : undefined,
        })),
      },
    });
  }

  /** Any other event, by weight. */
  function activity(slotAt: number): Draft {
    const k = rnd() * 100;
    const f = live.length > 0 ? live[skewed(live.length, 1.6)] : undefined;
    if (f && k < 58) {
      if (k < 46) return flagChange(f, false);
      if (k < 50) {
        if (f.tags.length > 0 && rnd() < 0.3) {
          const value = f.tags.splice(below(f.tags.length), 1)[0];
          return draft('feature-untagged', { ...flagBase(f), preData: { type: 'simple', value } });
        }
        const value = `team-${below(TEAMS)}`;
        if (!f.tags.includes(value)) f.tags.push(value);
        return draft('feature-tagged', { ...flagBase(f), data: { type: 'simple', value } });
      }
      if (k < 53) {
        f.stale = !f.stale;
        return draft(f.stale ? 'feature-stale-on' : 'feature-stale-off', flagBase(f));
      }
      if (k < 54) return draft('feature-potentially-stale-on', flagBase(f));
      f.type = rnd() < 0.2 ? pick(FLAG_TYPES) : f.type;
      return draft('feature-metadata-updated', {
        ...flagBase(f),
        data: {
          name: f.name,
          description: `Flag ${f.index} (${below(100)})`,
          type: f.type,
          project: f.project,
        },
      });
    }
    if (k < 84) return sdkEvent(slotAt);
    if (k < 91) return membership();
    if (k < 94) {
      // favourites
      const by = actor();
      if ((f && rnd() < 0.5) || !f) {
        const p = projects[skewed(projects.length)];
        return draft(rnd() < 0.8 ? 'project-favorited' : 'project-unfavorited', {
          ...by,
          project: p,
          data: { project: p },
        });
      }
      return draft(rnd() < 0.8 ? 'feature-favorited' : 'feature-unfavorited', {
        ...by,
        project: f.project,
        featureName: f.name,
        data: { feature: f.name },
      });
    }
    if (k < 96 && users.length > 1) {
      // a user changed: a new root role now and then, a few deleted (DELETED_USERS_SHARE by the end)
      const id = pick(users);
      const before = rootRole.get(id)!;
      if (rnd() < r.userDeleteChance) {
        users.splice(users.indexOf(id), 1);
        rootRole.delete(id);
        return draft('user-deleted', {
          createdBy: 'admin',
          createdByUserId: 1,
          preData: userData(id, before),
        });
      }
      const role = rnd() < 0.3 ? pick([1, 2, 3]) : before;
      rootRole.set(id, role);
      return draft('user-updated', {
        createdBy: 'admin',
        createdByUserId: 1,
        data: userData(id, role),
        preData: userData(id, before),
      });
    }
    const p = projects[skewed(projects.length)];
    return draft('project-updated', {
      project: p,
      data: {
        id: p,
        name: `Project ${p} (${below(10)})`,
        description: null,
        mode: rnd() < 0.1 ? 'private' : 'open',
        defaultStickiness: 'default',
        featureLimit: null,
      },
    });
  }

  function sdkEvent(slotAt: number): Draft {
    const app = `app-${below(APPS)}`;
    const environment = ENVS[below(2)];
    const stop = slotMs(r, slotAt, 0);
    if (rnd() < 0.05)
      return draft('client-register', {
        createdBy: 'unleash_system_user',
        createdByUserId: -1337,
        environment,
        data: {
          appName: app,
          instanceId: `${app}-${below(8)}`,
          environment,
          sdkVersion: `unleash-client-node:6.${below(5)}.0`,
          strategies: ['default', 'flexibleRollout'],
          started: new Date(stop - 3_600_000).toISOString(),
          interval: 60_000,
        },
      });
    // a bucket of a few flags of one project (a hot flag now and then)
    const toggles: Record<string, { yes: number; no: number }> = {};
    const n = 1 + below(6);
    for (let i = 0; i < n && live.length > 0; i++) {
      const f = rnd() < 0.15 && hot.length > 0 ? pick(hot) : live[skewed(live.length, 1.6)];
      toggles[f.name] = { yes: below(1000), no: below(200) };
    }
    return draft('client-metrics', {
      createdBy: 'unleash_system_user',
      createdByUserId: -1337,
      environment,
      data: {
        appName: app,
        instanceId: `${app}-${below(8)}`,
        environment,
        bucket: { start: new Date(stop - 60_000).toISOString(), stop: new Date(stop).toISOString(), toggles },
      },
    });
  }

  function membership(): Draft {
    const p = projects[skewed(projects.length)];
    const m = members.get(p)!;
    const pg = projectGroups.get(p)!;
    const k = rnd();
    if (users.length > 0 && (k < 0.35 || m.length === 0)) {
      const u = pick(users);
      if (!m.includes(u)) {
        m.push(u);
        return draft('project-user-added', {
          project: p,
          data: { userId: u, roleId: rnd() < 0.2 ? 4 : 5, roleName: 'Member', email: null },
        });
      }
    }
    if (m.length > 0 && k < 0.5) {
      const u = m.splice(below(m.length), 1)[0];
      return draft('project-user-removed', {
        project: p,
        preData: { userId: u, roleId: 5, roleName: 'Member', email: null },
      });
    }
    if (m.length > 0 && k < 0.65) {
      const u = pick(m);
      const roleId = rnd() < 0.5 ? 4 : 5;
      return draft(rnd() < 0.5 ? 'project-user-role-changed' : 'project-access-user-roles-updated', {
        project: p,
        ...(roleId === 4
          ? { data: { userId: u, roleId, roleName: 'Owner', email: null, roles: [roleId] } }
          : { data: { userId: u, roleId, roleName: 'Member', email: null, roles: [roleId] } }),
        preData: { userId: u, roleId: 9 - roleId, roles: [9 - roleId] },
      });
    }
    if (groups.length > 0 && k < 0.8) {
      const g = 1 + below(groups.length);
      const at = pg.indexOf(g);
      if (at < 0) {
        pg.push(g);
        return draft('project-group-added', {
          project: p,
          data: { groupId: g, roleId: rnd() < 0.3 ? 4 : 5, roleName: 'Member' },
        });
      }
      pg.splice(at, 1);
      return draft('project-group-removed', {
        project: p,
        preData: { groupId: g, roleId: 5, roleName: 'Member' },
      });
    }
    if (groups.length > 0 && users.length > 0) {
      const g = 1 + below(groups.length);
      const gm = groups[g - 1];
      if (gm.length > 0 && rnd() < 0.35) {
        const u = gm.splice(below(gm.length), 1)[0];
        return draft('group-user-removed', {
          createdBy: 'admin',
          createdByUserId: 1,
          preData: { groupId: g, userId: u },
        });
      }
      const u = pick(users);
      if (!gm.includes(u)) gm.push(u);
      return draft('group-user-added', {
        createdBy: 'admin',
        createdByUserId: 1,
        data: { groupId: g, userId: u },
      });
    }
    return draft('project-updated', { project: p, data: { id: p, name: `Project ${p}` } });
  }

  let chunk: FlagEvent[] = [];
  for (let i = 0; i < r.events; i++) {
    let d: Draft | null = null;
    let group: { groupType: string; groupId: string } | undefined;
    if (followUps.length > 0) {
      d = followUps.shift()!;
      group = followUpGroup;
    }
    if (!d && nextCreation < creations.length && creations[nextCreation].slot <= i) {
      // a creation and what follows it: one transaction
      followUpGroup = { groupType: 'transaction', groupId: ulid(slotMs(r, i, 0)) };
      d = create(creations[nextCreation++], i);
      group = followUpGroup;
    }
    while (!d && plans.size > 0 && plans.peek()!.slot <= i) d = planned(plans.pop()!);
    if (!d && nextHot < hotTotal && hot.length === HOT_FLAGS && hotSlot(nextHot) <= i) {
      d = flagChange(hot[nextHot % HOT_FLAGS], true);
      nextHot++;
    }
    d ??= activity(i);
    // most of what people do is written in a transaction of its own (Unleash 7+); SDK traffic never is
    if (!group && d.type !== 'client-metrics' && d.type !== 'client-register' && rnd() < 0.6)
      group = { groupType: 'transaction', groupId: ulid(slotMs(r, i, 0)) };
    // the keys in the order of the wire shape (libs/contract/src/flag-event.ts)
    const event: FlagEvent = {
      id: r.firstId + i,
      type: d.type,
      createdBy: d.createdBy,
      createdAt: new Date(slotMs(r, i, rnd())).toISOString(),
      createdByUserId: d.createdByUserId,
      data: d.data,
      preData: d.preData,
      tags: d.tags,
      featureName: d.featureName,
      project: d.project,
      environment: d.environment,
      ...(group ?? {}),
    };
    chunk.push(event);
    if (chunk.length >= r.chunk) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
  if (followUps.length > 0 || nextCreation < creations.length || nextHot < hotTotal)
    throw new Error(
      `the history ended with ${followUps.length} transaction events, ${creations.length - nextCreation} creations and ${hotTotal - nextHot} hot-flag events left`,
    );
  return largeInstallationSummary(o);
}
