import type { FlagEvent } from '@flaglens/contract';

/** The types a bench flag's changes cycle through after its creation. */
export const CHANGE_TYPES = [
  'feature-updated',
  'feature-environment-enabled',
  'feature-environment-disabled',
  'feature-strategy-add',
  'feature-strategy-update',
  'feature-tagged',
];

/** A bench project's creation (open, default stickiness). */
export function projectCreatedEvent(id: number, createdAt: string, project: string, name: string): FlagEvent {
  return {
    id,
    createdAt,
    type: 'project-created',
    createdBy: 'admin',
    createdByUserId: 1,
    environment: null,
    project,
    featureName: null,
    data: { id: project, name, description: null, mode: 'open', defaultStickiness: 'default' },
    preData: null,
    tags: [],
  };
}

/**
 * An event of a bench flag: its creation (`created`), or a change. The small numbers pick what varies from
 * one event to the next: the change's type (`type` into CHANGE_TYPES), its author (`user`, of 50), its
 * environment (`env`: production unless a multiple of 3), the flag's state and rollout (`n`), its team tag
 * (`team`, of 9).
 */
export function flagChangeEvent(e: {
  id: number;
  createdAt: string;
  name: string;
  project: string;
  created: boolean;
  type: number;
  user: number;
  env: number;
  n: number;
  team: number;
}): FlagEvent {
  const { name, project, n } = e;
  return {
    id: e.id,
    createdAt: e.createdAt,
    type: e.created ? 'feature-created' : CHANGE_TYPES[e.type % CHANGE_TYPES.length],
    createdBy: `user${e.user % 50}@example.com`,
    createdByUserId: (e.user % 50) + 2,
    environment: e.created ? null : e.env % 3 ? 'production' : 'development',
    project,
    featureName: name,
    data: e.created
      ? { name, project, type: 'release' }
      : {
          name,
          enabled: n % 2 === 0,
          strategies: [
            {
              name: 'flexibleRollout',
              parameters: { rollout: String(n % 100), stickiness: 'default', groupId: name },
            },
          ],
        },
    preData: e.created ? null : { name, enabled: n % 2 === 1 },
    tags: [{ type: 'simple', value: `team-${e.team % 9}` }],
  };
}
