import type { FlagEvent } from '@flaglens/contract';

/** A small deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface HistoryOptions {
  seed: number;
  projects: number;
  /** flags created per project */
  flagsPerProject: number;
  /** total events wanted (approximate: at least the creations) */
  events: number;
  /** history spans these weeks, ending at `end` */
  weeks: number;
  end: string;
  firstId?: number;
  /**
   * Also users, groups, memberships removed and changed, project archive/revive/delete, and a new flag for
   * every deleted one (so long histories keep their flag population); off keeps earlier seeds' histories.
   */
  rich?: boolean;
}

const TYPES = ['release', 'experiment', 'operational', 'kill-switch', 'permission'];
const ENVS = ['development', 'production'];

/**
 * A realistic, deterministic history of the overview's event kinds (same seed → same events): projects
 * created, updated, favourited, given members and default strategies; flags created, enabled, tagged,
 * marked stale, moved between projects, archived, revived, deleted; SDK metrics. Ids increase with time.
 */
export function generateHistory(o: HistoryOptions): FlagEvent[] {
  const rnd = prng(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const endMs = Date.parse(o.end);
  const startMs = endMs - o.weeks * 7 * 86_400_000;
  const drafts: Omit<FlagEvent, 'id'>[] = [];
  const ev = (at: number, type: string, x: Partial<FlagEvent>): void => {
    drafts.push({
      createdAt: new Date(Math.min(at, endMs)).toISOString(),
      type,
      createdBy: 'sim',
      createdByUserId: 1 + Math.floor(rnd() * 20),
      environment: null,
      project: null,
      featureName: null,
      data: null,
      preData: null,
      tags: null,
      ...x,
    });
  };
  const projectIds = Array.from({ length: o.projects }, (_, i) => (i === 0 ? 'default' : `sim-project-${i}`));
  const span = endMs - startMs;
  const flags: {
    name: string;
    project: string;
    createdAt: number;
    state: 'live' | 'archived' | 'deleted';
  }[] = [];
  let deleted = 0;
  let spawned = 0;
  const USERS = 25;
  const GROUPS = 5;
  if (o.rich) {
    for (let u = 2; u <= USERS; u++)
      ev(startMs + u * 1000, 'user-created', {
        createdByUserId: 1,
        data: { id: u, name: `User ${u}`, username: `user${u}`, email: `user${u}@example.com`, rootRole: 3 },
      });
    for (let g = 1; g <= GROUPS; g++)
      ev(startMs + 60_000 + g * 1000, 'group-created', {
        createdByUserId: 1,
        data: { id: g, name: `Group ${g}`, users: [{ user: { id: 1 + g } }] },
      });
  }
  for (const p of projectIds) {
    const created = startMs + Math.floor(rnd() * span * 0.1);
    if (p !== 'default')
      ev(created, 'project-created', {
        project: p,
        data: { id: p, name: `Project ${p}`, description: `Simulated ${p}`, defaultStickiness: 'default' },
      });
    ev(created + 1000, 'default-strategy-updated', {
      project: p,
      environment: 'production',
      data: {
        name: 'flexibleRollout',
        parameters: { groupId: '', rollout: '50', stickiness: 'default' },
        constraints: [],
      },
    });
    for (let i = 0; i < o.flagsPerProject; i++) {
      const name = `${p}.flag-${i}`;
      const at = created + 2000 + Math.floor(rnd() * (endMs - created - 2000));
      const type = pick(TYPES);
      ev(at, 'feature-created', {
        project: p,
        featureName: name,
        data: {
          name,
          description: null,
          type,
          project: p,
          stale: false,
          impressionData: false,
          archived: false,
        },
      });
      flags.push({ name, project: p, createdAt: at, state: 'live' });
    }
  }
  const ops = [
    'enable',
    'enable',
    'enable',
    'strategy',
    'strategy',
    'tag',
    'stale',
    'metadata',
    'archive',
    'revive',
    'delete',
    'move',
    'metrics',
    'favorite',
    'member',
    'project-updated',
  ];
  if (o.rich)
    ops.push('user', 'group-user', 'member-removed', 'group-access', 'access-roles', 'project-lifecycle');
  const lifecycleAt = new Map<string, number>();
  const projectState = new Map(projectIds.map((p) => [p, 'live' as 'live' | 'archived' | 'deleted']));
  while (drafts.length < o.events && flags.length > 0) {
    // every flag deleted (long histories without `rich`): nothing more to say about them
    if (deleted === flags.length) break;
    const f = pick(flags);
    if (f.state === 'deleted') continue;
    const at = f.createdAt + Math.floor(rnd() * Math.max(1, endMs - f.createdAt));
    const op = pick(ops);
    const base = { project: f.project, featureName: f.name };
    switch (op) {
      case 'enable':
        ev(at, 'feature-environment-enabled', { ...base, environment: pick(ENVS) });
        break;
      case 'strategy':
        ev(at, 'feature-strategy-add', {
          ...base,
          environment: pick(ENVS),
          data: {
            name: 'flexibleRollout',
            parameters: { rollout: String(Math.floor(rnd() * 100)) },
            constraints: [],
          },
        });
        break;
      case 'tag':
        ev(at, 'feature-tagged', { ...base, data: { type: 'simple', value: `t${Math.floor(rnd() * 9)}x` } });
        break;
      case 'stale':
        ev(at, rnd() < 0.5 ? 'feature-stale-on' : 'feature-stale-off', base);
        break;
      case 'metadata':
        ev(at, 'feature-metadata-updated', {
          ...base,
          data: { name: f.name, type: pick(TYPES), project: f.project, stale: rnd() < 0.2 },
        });
        break;
      case 'archive':
        if (f.state === 'live') {
          ev(at, 'feature-archived', base);
          f.state = 'archived';
        }
        break;
      case 'revive':
        if (f.state === 'archived') {
          ev(at, 'feature-revived', base);
          f.state = 'live';
        }
        break;
      case 'delete':
        if (f.state === 'archived' && rnd() < 0.3) {
          ev(at, 'feature-deleted', base);
          f.state = 'deleted';
          deleted++;
          if (o.rich) {
            const project = pick(projectIds);
            const name = `${project}.flag-n${spawned++}`;
            ev(at + 1000, 'feature-created', {
              project,
              featureName: name,
              data: { name, description: null, type: pick(TYPES), project, stale: false, archived: false },
            });
            flags.push({ name, project, createdAt: at + 1000, state: 'live' });
          }
        }
        break;
      case 'move': {
        const to = pick(projectIds);
        if (to !== f.project && f.state === 'live') {
          ev(at, 'feature-project-change', {
            ...base,
            project: to,
            data: { newProject: to, oldProject: f.project },
          });
          f.project = to;
        }
        break;
      }
      case 'metrics':
        ev(at, 'client-metrics', {
          environment: 'production',
          data: {
            appName: 'sim-app',
            environment: 'production',
            bucket: {
              start: new Date(at - 60000).toISOString(),
              stop: new Date(at).toISOString(),
              toggles: { [f.name]: { yes: 1, no: 0 } },
            },
          },
        });
        break;
      case 'favorite':
        ev(at, rnd() < 0.7 ? 'project-favorited' : 'project-unfavorited', {
          project: f.project,
          data: { project: f.project },
        });
        break;
      case 'member':
        ev(at, 'project-user-added', {
          project: f.project,
          data: { userId: 1 + Math.floor(rnd() * 20), roleId: 5, roleName: 'Member', email: null },
        });
        break;
      case 'project-updated':
        ev(at, 'project-updated', {
          project: f.project,
          data: {
            id: f.project,
            name: `Project ${f.project} v${Math.floor(rnd() * 5)}`,
            description: null,
            mode: 'open',
            defaultStickiness: 'default',
            featureLimit: null,
          },
        });
        break;
      case 'user': {
        const id = 2 + Math.floor(rnd() * (USERS - 1));
        if (rnd() < 0.05) ev(at, 'user-deleted', { createdByUserId: 1, preData: { id, name: `User ${id}` } });
        else
          ev(at, 'user-updated', {
            createdByUserId: 1,
            data: { id, name: `User ${id} (${Math.floor(rnd() * 9)})`, email: `user${id}@example.com` },
          });
        break;
      }
      case 'group-user': {
        const g = { groupId: 1 + Math.floor(rnd() * GROUPS), userId: 2 + Math.floor(rnd() * (USERS - 1)) };
        if (rnd() < 0.6) ev(at, 'group-user-added', { createdByUserId: 1, data: g });
        else ev(at, 'group-user-removed', { createdByUserId: 1, preData: g });
        break;
      }
      case 'member-removed':
        ev(at, 'project-user-removed', {
          project: f.project,
          preData: { userId: 1 + Math.floor(rnd() * 20), roleId: 5, roleName: 'Member' },
        });
        break;
      case 'group-access': {
        const added = rnd() < 0.7;
        const grant = {
          groupId: 1 + Math.floor(rnd() * GROUPS),
          roleId: rnd() < 0.5 ? 4 : 5,
          roleName: 'Member',
        };
        ev(at, added ? 'project-group-added' : 'project-group-removed', {
          project: f.project,
          ...(added ? { data: grant } : { preData: grant }),
        });
        break;
      }
      case 'access-roles':
        ev(at, 'project-access-user-roles-updated', {
          project: f.project,
          data: { userId: 2 + Math.floor(rnd() * (USERS - 1)), roles: [rnd() < 0.5 ? 4 : 5] },
        });
        break;
      case 'project-lifecycle': {
        const p = f.project;
        const state = projectState.get(p);
        if (p === 'default' || state === 'deleted') break;
        // a project's lifecycle events in time order
        const when = Math.max(at, (lifecycleAt.get(p) ?? 0) + 60_000);
        if (when > endMs) break;
        lifecycleAt.set(p, when);
        if (state === 'live') {
          ev(when, 'project-archived', { project: p, data: { id: p } });
          projectState.set(p, 'archived');
        } else if (rnd() < 0.97) {
          ev(when, 'project-revived', { project: p, data: { id: p } });
          projectState.set(p, 'live');
        } else {
          ev(when, 'project-deleted', { project: p, preData: { id: p } });
          projectState.set(p, 'deleted');
        }
        break;
      }
    }
  }
  // ids increase with time; ties keep generation order (per key, generation order is causal order)
  const order = drafts
    .map((d, i) => ({ d, i }))
    .sort((a, b) => (a.d.createdAt < b.d.createdAt ? -1 : a.d.createdAt > b.d.createdAt ? 1 : a.i - b.i));
  const first = o.firstId ?? 1;
  return order.map(({ d }, i) => ({ id: first + i, ...d }));
}
