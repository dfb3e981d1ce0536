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
