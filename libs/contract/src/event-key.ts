import type { FlagEvent } from './flag-event';

/** The Kafka message key of an event with neither a flag nor a project. */
export const INSTANCE_EVENT_KEY = 'instance';

/**
 * The Kafka message key of an event: its `featureName`, else its `project`, else `'instance'`
 * (docs/design.md#the-event-contract). Kafka keeps order per key, so a flag's events stay in order.
 */
export function eventKey(e: Pick<FlagEvent, 'featureName' | 'project'>): string {
  return e.featureName || e.project || INSTANCE_EVENT_KEY;
}
