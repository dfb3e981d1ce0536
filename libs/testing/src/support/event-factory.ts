import type { FlagEvent } from '@flaglens/contract';
import type { Message } from 'kafkajs';

export type EventShape = FlagEvent;

const TYPES = [
  'feature-updated',
  'feature-environment-enabled',
  'feature-environment-disabled',
  'feature-strategy-add',
  'feature-tagged',
];

/** A deterministic event of a flag; `i` picks the type and spreads the timestamps. */
export function flagEvent(id: number, featureName: string, i = id, base = Date.UTC(2026, 0, 1)): EventShape {
  return {
    id,
    createdAt: new Date(base + i * 1000).toISOString(),
    type: i === 0 ? 'feature-created' : TYPES[i % TYPES.length],
    createdBy: 'alice@example.com',
    createdByUserId: 2,
    environment: i % 2 ? 'production' : null,
    project: 'default',
    featureName,
    data: { name: featureName, seq: i, note: 'tab\there "quoted" back\\slash' },
    preData: null,
    tags: [{ value: 'team-a', type: 'simple' }],
  };
}

export function toMessage(e: EventShape): Message {
  return { key: e.featureName ?? e.project ?? 'instance', value: JSON.stringify(e) };
}

/**
 * The `i`-th strategy update of `flag` (a flexible rollout with a constraint), a minute apart from 2023-01-01 (or
 * `stepMs` apart from `base`), as the reference writes them: the events of the large lists the bench and the
 * load tests read.
 */
export function strategyUpdate(
  id: number,
  flag: string,
  i: number,
  { base = Date.UTC(2023, 0, 1), stepMs = 60_000 }: { base?: number; stepMs?: number } = {},
): FlagEvent {
  return {
    id,
    createdAt: new Date(base + i * stepMs).toISOString(),
    type: 'feature-strategy-update',
    createdBy: 'alice@example.com',
    createdByUserId: 2,
    environment: 'production',
    project: 'default',
    featureName: flag,
    data: {
      name: 'flexibleRollout',
      constraints: [{ contextName: 'region', operator: 'IN', values: ['eu-west', 'us-east'] }],
      parameters: { rollout: String(i % 100), stickiness: 'default', groupId: flag },
    },
    preData: null,
    tags: [{ value: 'checkout', type: 'team' }],
  };
}
