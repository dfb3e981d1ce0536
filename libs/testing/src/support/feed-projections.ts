import type { FlagEvent } from '@flaglens/contract';
import type { Database } from '@flaglens/persistence';
import { allProjections, appendEvents, applyProjections } from '@flaglens/projections';

/**
 * Feeds events to a projection database as the projector applies them, without Kafka: one transaction per
 * batch, the event log first (each id once), then every projection on the newly stored events. For projection
 * tests on real Postgres; `skipped` hears each event a projection skipped, with the reason.
 */
export async function feedProjections(
  ds: Database,
  batches: readonly (readonly FlagEvent[])[],
  skipped: (projection: string, id: number, reason: string) => void = () => undefined,
): Promise<void> {
  const c = await ds.connect();
  try {
    for (const batch of batches) {
      await c.query('BEGIN');
      const stored = await appendEvents(
        c,
        batch.map((event) => ({ event, knownType: true, topic: null, partition: null, offset: null })),
      );
      await applyProjections(c, stored, allProjections(), { skipped });
      await c.query('COMMIT');
    }
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    c.release();
  }
}
