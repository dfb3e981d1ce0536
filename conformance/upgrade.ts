/*
 * `npm run conformance -- --upgrade`: an Unleash upgraded in place while flaglens follows it (issue 36, item 3).
 *
 * 1. Unleash 6.10.1 on a fresh database; the scenario (scenario.ts) gives it a history;
 * 2. a fresh flaglens, the connector following Unleash's database (not `--once`), until flaglens holds every event;
 *    every answer compared with 6.10.1's own (compareAll in run.ts);
 * 3. 6.10.1 stopped; 7.6.5 started on the same database (its migrations run, the connector keeps following);
 *    more changes driven through 7.6.5's APIs; every answer compared with 7.6.5's own;
 * 4. the same with 8.2.0.
 * Nothing may be lost or doubled: after each step every flag's total equals Unleash's count of its events (of the
 * contract's types) and no event id appears twice in a list. Prints a table per step; exits 1 on any unexplained
 * difference.
 */
import { Client } from 'pg';
import { EVENT_TYPES } from '@flaglens/contract';
import { createToken, spawnCli, type CliProcess } from '@flaglens/testing/support/cli';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { compareAll, drained } from './run';
import { driveScenario, UnleashClient, type ScenarioResult } from './scenario';
import { summarize, Tally } from './compare';
import { installPeer, PEER_VERSIONS, startPeer, type Peer, type PeerVersion } from './unleash-peer';

const KNOWN = [...(EVENT_TYPES as readonly string[])];

export interface UpgradeStep {
  version: PeerVersion;
  matched: number;
  explained: number;
  unexplained: number;
  seconds: number;
}

/** More changes, through the upgraded release's own APIs (as the admin, with the PAT made on 6.10.1). */
async function driveMore(u: UnleashClient, s: ScenarioResult, version: PeerVersion): Promise<void> {
  const A = s.users[0].pat;
  const tag = version.replace(/\./g, '-');
  const name = `upgrade.${tag}`;
  await u.post(
    '/api/admin/projects/default/features',
    { name, type: 'release', description: `created on Unleash ${version}` },
    A,
  );
  await u.post(
    `/api/admin/projects/default/features/${name}/environments/development/strategies`,
    {
      name: 'flexibleRollout',
      constraints: [],
      parameters: { rollout: '30', stickiness: 'default', groupId: name },
    },
    A,
  );
  await u.post(`/api/admin/projects/default/features/${name}/environments/development/on`, {}, A);
  await u.post(`/api/admin/features/${name}/tags`, { type: 'simple', value: tag }, A);
  for (const on of ['off', 'on', 'off', 'on'])
    await u.post(
      `/api/admin/projects/default/features/checkout.new-flow/environments/development/${on}`,
      {},
      A,
    );
  await u.post('/api/admin/projects/payments/features/payments.sepa/environments/production/off', {}, A);
  await u.post('/api/admin/projects/default/stale', { features: ['experiment.pricing'], stale: true }, A);
  const erin = s.users.find((x) => x.name === 'erin')!;
  await u.put(
    `/api/admin/user-admin/${erin.id}`,
    { name: `erin (${version})`, email: erin.email, rootRole: 3 },
    A,
  );
  await u.post('/api/admin/harness/flush', {}, A);
  await u.post('/api/admin/harness/jobs', {}, A);
}

/** Waits until flaglens holds every event (of the contract's types) of every flag in Unleash's table. */
async function followedAll(stack: Stack, db: Client, token: string): Promise<void> {
  await waitFor(
    'flaglens holds every event of every flag',
    async () => {
      const rows = (
        await db.query<{ name: string; n: number }>(
          `SELECT feature_name AS name, count(*)::int AS n FROM events
            WHERE feature_name IS NOT NULL AND type = ANY($1::text[]) GROUP BY feature_name`,
          [KNOWN],
        )
      ).rows;
      for (const r of rows) {
        const res = await httpGet(stack.port, `/api/admin/events/${encodeURIComponent(r.name)}`, {
          authorization: token,
        });
        if (res.status !== 200) return false;
        if ((res.json() as { totalEvents: number }).totalEvents !== r.n) return false;
      }
      return true;
    },
    { timeoutMs: 120_000, intervalMs: 500 },
  );
  await drained(stack);
}

/** Nothing doubled: no event id twice in any flag's list. */
async function noDuplicates(t: Tally, stack: Stack, db: Client, token: string): Promise<void> {
  const names = (
    await db.query<{ name: string }>(
      `SELECT DISTINCT feature_name AS name FROM events WHERE feature_name IS NOT NULL`,
    )
  ).rows;
  for (const { name } of names) {
    const res = await httpGet(stack.port, `/api/admin/events/${encodeURIComponent(name)}`, {
      authorization: token,
    });
    const ids = (res.json() as { events: { id: number }[] }).events.map((e) => e.id);
    if (new Set(ids).size === ids.length) t.match('upgrade', 'no event listed twice');
    else
      t.differ('upgrade', {
        what: `flag ${name}`,
        field: 'no event listed twice',
        unleash: 0,
        flaglens: ids,
      });
  }
}

export async function runUpgrade(
  log: (m: string) => void,
): Promise<{ steps: UpgradeStep[]; failed: boolean }> {
  for (const v of PEER_VERSIONS) installPeer(log, v);
  const steps: UpgradeStep[] = [];
  let failed = false;
  let peer: Peer | undefined;
  let stack: Stack | undefined;
  let follow: CliProcess | undefined;
  let db: Client | undefined;
  let database: string | undefined;
  try {
    let s: ScenarioResult | undefined;
    for (const version of PEER_VERSIONS) {
      const t0 = Date.now();
      const previous = peer;
      if (previous) {
        await previous.stop();
        log(
          `Unleash ${previous.version} stopped; starting ${version} on the same database (its migrations run)`,
        );
      }
      peer = await startPeer(await freePort(), undefined, {
        version,
        database,
        keepDatabase: true,
        adminToken: previous?.adminToken,
        adminPassword: previous?.adminPassword,
      });
      database = peer.db;
      log(`Unleash ${version} up on ${peer.url} (database ${peer.db})`);
      const u = new UnleashClient(peer.url, peer.adminToken);
      if (!s) {
        s = await driveScenario(u, peer.adminPassword, log);
        db = new Client({ connectionString: peer.dbUrl });
        db.on('error', () => undefined);
        await db.connect();
        stack = await startStack('conformance_upgrade');
        const port = await freePort();
        follow = spawnCli(
          { ...stack.env, UNLEASH_DATABASE_URL: peer.dbUrl, CONNECTOR_PORT: String(port), LOG_LEVEL: 'warn' },
          ['source', 'unleash'],
        );
        await waitFor(
          'the connector following',
          async () => (await httpGet(port, '/health/ready')).status === 200,
          {
            timeoutMs: 180_000,
          },
        );
      } else {
        await driveMore(u, s, version);
        log(`more changes driven through Unleash ${version}`);
      }
      const token = await createToken(stack!.env, '1');
      await followedAll(stack!, db!, token);
      const t = new Tally();
      await compareAll(t, u, db!, stack!, s, version);
      await noDuplicates(t, stack!, db!, token);
      process.stdout.write(`\n## upgrade step: flaglens following, vs Unleash ${version}\n\n${t.table()}\n`);
      const bad = t.unexplained;
      if (bad.length) {
        failed = true;
        process.stdout.write(`\n${bad.length} unexplained difference(s) against Unleash ${version}:\n`);
        for (const line of summarize(bad)) process.stdout.write(`${line}\n`);
      }
      steps.push({
        version,
        matched: t.matched,
        explained: t.differences.length - bad.length,
        unexplained: bad.length,
        seconds: Math.round((Date.now() - t0) / 1000),
      });
    }
  } catch (e) {
    failed = true;
    const cause = (e as { cause?: Error }).cause;
    log(`upgrade: failed: ${(e as Error).message}${cause ? ` (${cause.message})` : ''}`);
    if (peer) log(`Unleash ${peer.version}'s output, last lines:\n${peer.output.join('').slice(-3000)}`);
    if (follow) log(`the connector's output, last lines:\n${follow.output.join('').slice(-3000)}`);
    process.stdout.write(`\nthe upgrade run failed: ${(e as Error).message}\n`);
  } finally {
    if (follow) {
      follow.child.kill('SIGTERM');
      await follow.exited;
    }
    await db?.end().catch(() => undefined);
    await stack?.stop().catch(() => undefined);
    await peer?.stop().catch(() => undefined);
    if (database) {
      const a = new Client({ connectionString: peer!.dbUrl.replace(/\/[^/]*$/, '/postgres') });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
      await a.end();
    }
  }
  return { steps, failed };
}
