import { Client } from 'pg';
import { createTestDatabase } from './test-database';

describe('createTestDatabase (real Postgres)', () => {
  it("drop waits for the file's closing connections instead of terminating them", async () => {
    const db = await createTestDatabase('drop_wait');
    // a connection closing when `drop` starts, as a pool's are right after `pool.end()` resolves (it resolves
    // once it has asked its clients to end, not once they have): here its end is asked for 100 ms later
    const late = new Client({ connectionString: db.url });
    const errors: Error[] = [];
    late.on('error', (e) => errors.push(e));
    await late.connect();
    const closing = new Promise<void>((resolve) =>
      setTimeout(() => void late.end().then(resolve, resolve), 100),
    );
    await db.drop();
    await closing;
    // a forced drop would have ended it with 57P01 ("terminating connection due to administrator command")
    expect(errors.map((e) => e.message)).toEqual([]);
    const admin = new Client({ connectionString: db.url.replace(/\/[^/]*$/, '/postgres') });
    await admin.connect();
    try {
      const left = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [db.name]);
      expect(left.rowCount).toBe(0);
    } finally {
      await admin.end();
    }
  });

  it('drop forces the connections left open, without waiting long for them', async () => {
    const db = await createTestDatabase('drop_force');
    const stuck = new Client({ connectionString: db.url });
    const errors: Error[] = [];
    stuck.on('error', (e) => errors.push(e));
    await stuck.connect();
    // forced once the connections have stayed as they are a moment, not after the whole wait: with a wait of a
    // minute, well before it (a loaded machine took 2.1 s for the settling, the forced drop and its checkpoint)
    const started = Date.now();
    await db.drop({ waitMs: 60_000 });
    expect(Date.now() - started).toBeLessThan(30_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual(['57P01']);
    await stuck.end().catch(() => undefined);
  });
});
