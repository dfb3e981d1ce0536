import { createServer, type Server } from 'node:http';
import { topicWatermarks } from '@flaglens/kafka';
import { createScratchUnleash, insertEvents, type ScratchUnleash } from '@flaglens/testing/scratch-unleash';
import { runCli, spawnCli } from '@flaglens/testing/support/cli';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { waitFor } from '@flaglens/testing/support/wait-for';

const ROWS = 60_000;
const PASSWORD = 'sekret-pw-4711';

/** Unleash's URL with a password in it (trust auth ignores it): it must never show in any output. */
const withPassword = (url: string) => {
  const u = new URL(url);
  u.username = 'postgres';
  u.password = PASSWORD;
  return u.toString();
};

const stored = async (stack: Stack, source = 'unleash') =>
  (
    await stack.db.query<{ hwm: number }>(
      `SELECT (position->>'hwm')::int AS hwm FROM public.source_positions WHERE source = $1`,
      [source],
    )
  )[0]?.hwm ?? 0;

/** The connector as operators run it (the CLI), into a running flaglens (projector + api). */
describe('source unleash (CLI) into a running flaglens', () => {
  let stack: Stack;
  let unleash: ScratchUnleash;

  beforeAll(async () => {
    stack = await startStack('source_e2e');
    unleash = await createScratchUnleash('source_e2e');
    await insertEvents(unleash.client, ROWS, { flags: 500 });
  });

  afterAll(async () => {
    await stack?.stop();
    await unleash?.drop();
  });

  it('kill -9 mid-backfill, restart: every event projected exactly once', async () => {
    const url = withPassword(unleash.url);
    const first = spawnCli(stack.env, [
      'source',
      'unleash',
      '--database-url',
      url,
      '--once',
      '--batch-size',
      '1000',
    ]);
    // kill it while Kafka holds events the stored position does not cover (produced, not yet stored): the
    // process is frozen (SIGSTOP) while the two are compared, so it cannot store its position in between
    const topicCount = async () =>
      (await topicWatermarks(stack.kafka, stack.topic)).reduce((n, p) => n + p.high, 0);
    await waitFor(
      'produced beyond the stored position, mid-backfill',
      async () => {
        first.child.kill('SIGSTOP');
        const sentNow = await topicCount();
        const storedNow = await stored(stack);
        if (sentNow >= 5000 && sentNow > storedNow) return true;
        first.child.kill('SIGCONT');
        return false;
      },
      { intervalMs: 3, timeoutMs: 60000 },
    );
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    const atKill = await stored(stack);
    const sentAtKill = await topicCount();
    expect(atKill).toBeLessThan(ROWS); // mid-backfill
    const second = await runCli(stack.env, ['source', 'unleash', '--database-url', url, '--once']);
    expect(JSON.parse(second.stdout.trim().split('\n').pop()!)).toMatchObject({ hwm: ROWS });
    await stack.waitForEvents(ROWS);
    const [r] = await stack.db.query<{ n: string; lo: string; hi: string; d: string }>(
      `SELECT count(*) AS n, min(id) AS lo, max(id) AS hi, count(DISTINCT id) AS d FROM event_log`,
    );
    expect([Number(r.n), Number(r.lo), Number(r.hi), Number(r.d)]).toEqual([ROWS, 1, ROWS, ROWS]);
    const sent = await topicCount();
    // what was produced before the kill and not covered by the stored position was sent again, stored once (a
    // position COMMIT already sent when the connector was frozen may still land: then nothing is sent twice)
    expect(sent).toBe(ROWS + (sentAtKill - atKill));
    const [dl] = await stack.db.query<{ n: string }>(`SELECT count(*) AS n FROM public.dead_letters`);
    expect(Number(dl.n)).toBe(0);
    process.stderr.write(
      `[source e2e] killed at stored position ${atKill}; ${sent} messages for ${ROWS} rows (${sent - ROWS} re-sent, stored once)\n`,
    );
    for (const o of [...first.output, second.stdout, second.stderr]) {
      expect(o).not.toContain(PASSWORD);
      expect(o).not.toMatch(/\n\s+at /);
    }
  });

  it('follows: /health, /metrics on CONNECTOR_PORT, `status` shows it; a new row is readable through the api', async () => {
    const connectorPort = await freePort();
    const env = {
      ...stack.env,
      CONNECTOR_PORT: String(connectorPort),
      UNLEASH_DATABASE_URL: withPassword(unleash.url),
    };
    const follow = spawnCli(env, ['source', 'unleash']);
    try {
      await waitFor(
        'connector ready',
        async () => (await httpGet(connectorPort, '/health/ready')).status === 200,
        {
          timeoutMs: 60000,
        },
      );
      expect((await httpGet(connectorPort, '/health/live')).status).toBe(200);
      const metrics = (await httpGet(connectorPort, '/metrics')).text;
      expect(metrics).toMatch(
        new RegExp(`flaglens_source_position\\{source="unleash",app="connector"\\} ${ROWS}`),
      );
      expect(metrics).toMatch(/flaglens_source_lag_rows\{[^}]*\} 0/);
      await unleash.client.query(
        `INSERT INTO events (type, created_by, created_by_user_id, project, feature_name) VALUES ('feature-stale-on', 'admin', 1, 'default', 'gen-7')`,
      );
      await stack.waitForEvents(ROWS + 1);
      const status = await runCli(stack.env, ['status', '--json']);
      const s = JSON.parse(status.stdout) as { sources: { source: string; hwm: number; state: string }[] };
      expect(s.sources).toEqual([
        expect.objectContaining({ source: 'unleash', hwm: ROWS + 1, state: 'following' }),
      ]);
      const human = await runCli(stack.env, ['status']);
      expect(human.stdout).toMatch(/source unleash .*postgres:\/\/127\.0\.0\.1:\d+\/flaglens_t_unleash/);
      expect(human.stdout).not.toContain(PASSWORD);
    } finally {
      follow.child.kill('SIGTERM');
    }
    expect(await follow.exited).toBe(0);
    expect(follow.output.join('')).not.toContain(PASSWORD);
  });

  it('an unreachable Unleash: one line per attempt, retried with backoff, no stack, no password', async () => {
    const port = await freePort();
    const cli = spawnCli(stack.env, [
      'source',
      'unleash',
      '--once',
      '--source-name',
      'nowhere',
      '--database-url',
      `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/unleash`,
    ]);
    // 0.5 + 1 + 2 s of backoff, after the CLI's start (seconds on a loaded machine)
    await waitFor('three attempts', async () => cli.output.join('').split('unreachable').length > 3, {
      timeoutMs: 60000,
    });
    cli.child.kill('SIGTERM');
    await cli.exited;
    const out = cli.output.join('');
    expect(out).toMatch(
      /Unleash database unreachable: connect ECONNREFUSED 127\.0\.0\.1:\d+; retrying in 0\.5 s\n/,
    );
    expect(out).toMatch(/retrying in 1\.0 s/);
    expect(out).not.toContain(PASSWORD);
    expect(out).not.toMatch(/\n\s+at /);
  });

  it('a database that is not Unleash: exit 2 with the reason', async () => {
    const bad = withPassword(stack.db.url);
    const r = await runCli(stack.env, [
      'source',
      'unleash',
      '--once',
      '--source-name',
      'x',
      '--database-url',
      bad,
    ]).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect((r as { code?: number }).code).toBe(2);
    expect(r.stderr).toContain('no "events" table');
    expect(r.stderr).not.toContain(PASSWORD);
  });

  it('API mode: a refused token exits 2, and the token is not printed', async () => {
    const server: Server = createServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"name":"UnauthorizedError","message":"You must log in to use Unleash."}');
    });
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    try {
      const token = '*:*.refused-token-secret-123';
      const r = await runCli(stack.env, [
        'source',
        'unleash',
        '--once',
        '--source-name',
        'api',
        '--api-url',
        `http://127.0.0.1:${port}`,
        '--token',
        token,
      ]).catch((e: { code: number; stdout: string; stderr: string }) => e);
      expect((r as { code?: number }).code).toBe(2);
      expect(r.stderr).toContain('Unleash refused the token (HTTP 401)');
      expect(r.stderr + r.stdout).not.toContain('refused-token-secret');
    } finally {
      server.close();
    }
  });
});
