import type { FlagEvent } from '@flaglens/contract';

/** A test event with defaults (for the projections' unit tests). */
export function testEvent(id: number, type: string, o: Partial<FlagEvent> = {}): FlagEvent {
  return {
    id,
    createdAt: new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString(),
    type,
    createdBy: 'admin',
    createdByUserId: 1,
    environment: null,
    project: null,
    featureName: null,
    data: null,
    preData: null,
    tags: null,
    ...o,
  };
}
