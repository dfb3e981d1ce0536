import { Client } from 'pg';
import { loadConfig } from '@flaglens/config';
import { ApiCacheMetrics, MetricsRegistry } from '@flaglens/observability';
import {
  ANYTHING,
  CHANGE_CHANNEL,
  EVERYTHING_CHANGED,
  encodeChanges,
  type Changes,
} from '@flaglens/projections';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { ChangeListener } from './change-listener.service';

/** The api's listener of the change feed (real Postgres): what it hands on, and what it counts. */
describe('ChangeListener (real Postgres)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('change_listener');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('hands every notice on and counts them by scope: named, everything, reset', async () => {
    const metrics = new MetricsRegistry('api');
    const listener = new ChangeListener(loadConfig({ DATABASE_URL: db.url }), new ApiCacheMetrics(metrics));
    const seen: (Changes | 'reset')[] = [];
    listener.subscribe((c) => seen.push(c));
    const sender = new Client({ connectionString: db.url });
    await sender.connect();
    try {
      await listener.onModuleInit();
      expect(listener.listening).toBe(true);
      // one transaction of a batch too large for one payload, then one of "everything" (a rebuild's switch)
      const many = Array.from({ length: 600 }, (_, i) => `a-flag-with-a-rather-long-name-${i}`);
      const notices = encodeChanges([
        { tables: ['event_log'], flags: new Set(many), projects: new Set(['p']) },
      ]);
      expect(notices.length).toBeGreaterThan(1);
      await sender.query('BEGIN');
      for (const n of notices) await sender.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, n]);
      await sender.query('COMMIT');
      await sender.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, EVERYTHING_CHANGED]);
      for (let i = 0; i < 100 && seen.length < notices.length + 2; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(seen[0]).toBe('reset'); // on connecting: anything may have changed before
      expect(
        seen.slice(1, -1).flatMap((c) => (c === 'reset' ? [] : c.written.flatMap((w) => w.flags))),
      ).toEqual(many);
      expect(seen[seen.length - 1]).toEqual(ANYTHING);
      const text = await metrics.render();
      const count = (scope: string) =>
        Number(
          new RegExp(`^flaglens_api_change_notices_total\\{[^}]*scope="${scope}"[^}]*\\} (\\d+)$`, 'm').exec(
            text,
          )?.[1],
        );
      expect([count('reset'), count('named'), count('everything')]).toEqual([1, notices.length, 1]);
    } finally {
      await listener.onModuleDestroy();
      await sender.end();
    }
  });
});
