/*
 * `npm run conformance [-- --unleash <version>]`: the real Unleash as the oracle of flaglens's answers, for each
 * release flaglens follows (6.10.1, 7.6.5, 8.2.0; without `--unleash`, all three in turn). For each release:
 *
 * 1. installs unleash-server@<version> into .cache/unleash-<version> (npm ci from
 *    conformance/unleash-peer/<version>/, its own lockfile);
 * 2. starts it on loopback, on the Node it needs (6.10.1: 20; 7.6.5, 8.2.0: 24), against a fresh database on
 *    the machine's Postgres;
 * 3. drives a scenario through its admin and client APIs (scenario.ts: the same steps for every release; none
 *    uses what 7.0 removed);
 * 4. starts a fresh flaglens (database, topic, projector, api) and runs the connector `--once` into it;
 * 5. compares every flag's event list, every user's profile, every project's overview and (8.2.0) status
 *    (compare.ts);
 * 6. follow mode: the connector following, a flag toggled in Unleash is visible through flaglens's api
 *    within 1 s (each of 20 toggles; p50/p99 printed);
 * 7. hosted mode: the connector over Unleash's API (`--api-url --token`) into a second flaglens gives the same
 *    event lists.
 * Prints a table per release (fields matched, deviations with their reasons, unexplained count) and a summary;
 * exits 1 on an unexplained difference or a missed freshness bound in any release.
 *
 * `-- --upgrade` instead: one Unleash upgraded in place, 6.10.1 to 7.6.5 to 8.2.0, while flaglens follows it
 * (upgrade.ts).
 */
import { Client } from 'pg';
import { EVENT_TYPES } from '@flaglens/contract';
import { topicWatermarks } from '@flaglens/kafka';
import { createToken, runCli, spawnCli } from '@flaglens/testing/support/cli';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { waitFor } from '@flaglens/testing/support/wait-for';
import {
  installPeer,
  isPeerVersion,
  PEER_VERSIONS,
  startPeer,
  type Peer,
  type PeerVersion,
} from './unleash-peer';
import { driveScenario, UnleashClient, type ScenarioResult } from './scenario';
import {
  compareEventList,
  compareOverview,
  compareProfile,
  compareAnswer,
  summarize,
  Tally,
} from './compare';
import { compareLifecycle, driveLifecycle } from './lifecycle';
import { compareSearch } from './search';

const started = Date.now();
const log = (m: string) =>
  process.stderr.write(`[conformance ${((Date.now() - started) / 1000).toFixed(1)}s] ${m}\n`);
const KNOWN = new Set<string>(EVENT_TYPES);
const FRESHNESS_BOUND_MS = 1000;
const TOGGLES = 20;
/** The peer's `server.unleashUrl`: Unleash's default, as the peer sets none. */
const PEER_UNLEASH_URL = 'http://localhost:4242';

type Json = Record<string, unknown>;

async function flaglensGet(stack: Stack, path: string, token: string): Promise<Json> {
  const r = await httpGet(stack.port, path, { authorization: token });
  if (r.status !== 200) throw new Error(`flaglens GET ${path} -> ${r.status}: ${r.text.slice(0, 300)}`);
  return r.json() as Json;
}

/** Waits until the projector has handled every message of the topic (stored, deduplicated or dead-lettered). */
export async function drained(stack: Pick<Stack, 'kafka' | 'topic' | 'db'>): Promise<void> {
  await waitFor(
    'the projector caught up with the topic',
    async () => {
      const high = (await topicWatermarks(stack.kafka, stack.topic)).map((p) => [p.partition, p.high]);
      const stored = await stack.db.query<{ partition: number; next_offset: string }>(
        `SELECT partition, next_offset FROM projector_offsets WHERE topic = $1`,
        [stack.topic],
      );
      const at = new Map(stored.map((s) => [s.partition, Number(s.next_offset)]));
      return high.every(([p, h]) => h === 0 || at.get(p) === h);
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
}

async function connectOnce(stack: Stack, args: string[]): Promise<Json> {
  const r = await runCli({ ...stack.env, LOG_LEVEL: 'warn' }, ['source', 'unleash', '--once', ...args]);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Json;
}

export async function compareAll(
  t: Tally,
  u: UnleashClient,
  unleashDb: Client,
  stack: Stack,
  s: ScenarioResult,
  version: PeerVersion = '6.10.1',
): Promise<void> {
  // flaglens tokens for every (projected) user, issued by the operator CLI
  const tokens = new Map<number, string>();
  for (const user of s.users) tokens.set(user.id, await createToken(stack.env, String(user.id)));
  const adminToken = tokens.get(1)!;

  // every flag that has events
  const flags = (
    await unleashDb.query<{ name: string; unknown: string }>(
      `SELECT feature_name AS name, count(*) FILTER (WHERE NOT (type = ANY($1::text[])))::int AS unknown
         FROM events WHERE feature_name IS NOT NULL GROUP BY feature_name ORDER BY feature_name`,
      [[...KNOWN]],
    )
  ).rows;
  for (const f of flags) {
    const path = `/api/admin/events/${encodeURIComponent(f.name)}`;
    const ul = (await u.get(path, s.users[0].pat)).json as { events: never[]; totalEvents: number };
    const fl = (await flaglensGet(stack, path, adminToken)) as unknown as {
      events: never[];
      totalEvents: number;
    };
    compareEventList(t, ul, fl, {
      flag: f.name,
      knownType: (x) => KNOWN.has(x),
      unknownTotal: Number(f.unknown),
      cap: eventCap(version),
      release: version,
    });
  }
  log(`compared the event lists of ${flags.length} flags`);

  for (const user of s.users) {
    const up = (await u.get('/api/admin/user/profile', user.pat)).json as Json;
    const fp = await flaglensGet(stack, '/api/admin/user/profile', tokens.get(user.id)!);
    compareProfile(t, user.name, up, fp);
  }
  log(`compared the profiles of ${s.users.length} users`);

  const firstEventAt = (
    await unleashDb.query<{ at: Date }>(`SELECT created_at AS at FROM events ORDER BY id LIMIT 1`)
  ).rows[0].at.toISOString();
  const projects = (await unleashDb.query<{ id: string }>(`SELECT id FROM projects ORDER BY id`)).rows.map(
    (r) => r.id,
  );
  const onboarding: string[] = [];
  for (const p of projects) {
    const path = `/api/admin/projects/${p}/overview`;
    const uo = (await u.get(path, s.users[0].pat)).json as Json;
    const fo = await flaglensGet(stack, path, adminToken);
    const liveFlags = (
      await unleashDb.query<{ name: string }>(
        `SELECT name FROM features WHERE project = $1 AND archived_at IS NULL`,
        [p],
      )
    ).rows.map((r) => r.name);
    const [ev] = (
      await unleashDb.query<{ created: Date | null; archived: Date | null; unknown: number }>(
        `SELECT (SELECT max(created_at) FROM events WHERE project = $1 AND type = 'project-created') AS created,
                (SELECT max(created_at) FROM events WHERE project = $1 AND type = 'project-archived') AS archived,
                (SELECT count(*)::int FROM events WHERE project = $1 AND created_at >= now() - interval '30 days'
                    AND NOT (type = ANY($2::text[]))) AS unknown`,
        [p, [...KNOWN]],
      )
    ).rows;
    onboarding.push(`${p}: ${JSON.stringify(uo.onboardingStatus)} / ${JSON.stringify(fo.onboardingStatus)}`);
    compareOverview(t, uo, fo, {
      project: p,
      liveFlags,
      firstEventAt,
      createdEventAt: ev.created?.toISOString(),
      archivedEventAt: ev.archived?.toISOString(),
      unknownActivity: ev.unknown,
    });
  }
  // a deleted project: both answer 404
  const gone = await httpGet(stack.port, '/api/admin/projects/temp/overview', { authorization: adminToken });
  const ugone = await u.call(
    'GET',
    '/api/admin/projects/temp/overview',
    undefined,
    s.users[0].pat,
    [200, 404],
  );
  if (gone.status === ugone.status)
    t.match('GET /api/admin/projects/{id}/overview', 'status of a deleted project');
  else
    t.differ('GET /api/admin/projects/{id}/overview', {
      what: 'project temp',
      field: 'status of a deleted project',
      unleash: ugone.status,
      flaglens: gone.status,
    });
  log(`compared the overviews of ${projects.length} projects (and a deleted one)`);
  log(`onboardingStatus (Unleash / flaglens): ${onboarding.join('; ')}`);

  // 8.2.0's project status (every project, and an id no project has: Unleash answers zeros) and personal
  // dashboard (every user's; each project's details as the first user sees them)
  if (version === '8.2.0') {
    const same = async (group: string, what: string, path: string, pat: string, token: string) =>
      compareAnswer(
        t,
        group,
        what,
        (await u.get(path, pat)).json as Json,
        await flaglensGet(stack, path, token),
      );
    for (const p of [...projects, 'no-such-project'])
      await same(
        'GET /api/admin/projects/{id}/status',
        `project ${p}`,
        `/api/admin/projects/${p}/status`,
        s.users[0].pat,
        adminToken,
      );
    for (const user of s.users)
      await same(
        'GET /api/admin/personal-dashboard',
        `user ${user.name}`,
        '/api/admin/personal-dashboard',
        user.pat,
        tokens.get(user.id)!,
      );
    for (const p of projects)
      await same(
        'GET /api/admin/personal-dashboard/{id}',
        `project ${p}`,
        `/api/admin/personal-dashboard/${p}`,
        s.users[0].pat,
        adminToken,
      );
    log(
      `compared the status of ${projects.length} projects and the personal dashboards of ${s.users.length} users`,
    );
  }

  // the event search, the event creators and ?project= (8.2.0 is the release flaglens answers them as)
  if (version === '8.2.0') {
    const n = await compareSearch(t, u, unleashDb, stack, s, tokens);
    log(`compared ${n} event search, event creator and project event list answers`);
  }
}

/** Follow mode: toggles in the running Unleash, each visible through flaglens's api within the bound. */
async function followFreshness(
  stack: Stack,
  peer: Peer,
  u: UnleashClient,
  s: ScenarioResult,
): Promise<number[]> {
  const port = await freePort();
  const follow = spawnCli(
    { ...stack.env, UNLEASH_DATABASE_URL: peer.dbUrl, CONNECTOR_PORT: String(port), LOG_LEVEL: 'warn' },
    ['source', 'unleash'],
  );
  const token = await createToken(stack.env, '1');
  const { project, name } = s.toggleFlag;
  const path = `/api/admin/events/${encodeURIComponent(name)}`;
  const latencies: number[] = [];
  try {
    await waitFor(
      'the connector following',
      async () => (await httpGet(port, '/health/ready')).status === 200,
      {
        timeoutMs: 60_000,
      },
    );
    let on = true;
    for (let i = 0; i < TOGGLES; i++) {
      on = !on;
      const before = ((await flaglensGet(stack, path, token)) as { totalEvents: number }).totalEvents;
      await u.post(
        `/api/admin/projects/${project}/features/${name}/environments/development/${on ? 'on' : 'off'}`,
        {},
        s.users[0].pat,
      );
      const committed = Date.now(); // Unleash answers after its transaction committed
      for (;;) {
        const list = (await flaglensGet(stack, path, token)) as {
          totalEvents: number;
          events: { type: string }[];
        };
        if (list.totalEvents > before) {
          latencies.push(Date.now() - committed);
          break;
        }
        if (Date.now() - committed > 10_000) throw new Error(`toggle ${i} not visible after 10 s`);
        await new Promise((r) => setTimeout(r, 5));
      }
      await new Promise((r) => setTimeout(r, 100 + ((i * 37) % 200)));
    }
  } finally {
    follow.child.kill('SIGTERM');
    await follow.exited;
  }
  return latencies;
}

/** How many events `GET /api/admin/events/{flag}` lists: 6.x its newest 100, 7.0 and later its newest 50. */
export const eventCap = (version: PeerVersion) => (version.startsWith('6.') ? 100 : 50);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

interface ReleaseResult {
  version: PeerVersion;
  matched: number;
  explained: number;
  unexplained: number;
  seconds: number;
  failed: boolean;
}

async function runRelease(version: PeerVersion): Promise<ReleaseResult> {
  const t0 = Date.now();
  installPeer(log, version);
  let peer: Peer | undefined;
  let stack: Stack | undefined;
  let apiStack: Stack | undefined;
  let failed = false;
  let counts = { matched: 0, explained: 0, unexplained: 0 };
  let db: Client | undefined;
  try {
    peer = await startPeer(await freePort(), undefined, { version });
    log(`Unleash ${version} up on ${peer.url} (database ${peer.db})`);
    const u = new UnleashClient(peer.url, peer.adminToken);
    const scenario = await driveScenario(u, peer.adminPassword, log);
    // lifecycle routes are stable from 8.0 (6.x and 7.x keep them behind flags)
    const lifecycle = version.startsWith('8.');
    if (lifecycle) await driveLifecycle(u, scenario, log);
    db = new Client({ connectionString: peer.dbUrl });
    db.on('error', () => undefined); // the database is dropped when the run ends
    await db.connect();

    // the search's summaries link to the Unleash flaglens follows: the peer's own unleashUrl
    stack = await startStack('conformance', { UNLEASH_URL: PEER_UNLEASH_URL });
    const once = await connectOnce(stack, ['--database-url', peer.dbUrl]);
    log(`connector --once: ${JSON.stringify(once)}`);
    await drained(stack);
    const tally = new Tally();
    await compareAll(tally, u, db, stack, scenario, version);
    if (lifecycle) await compareLifecycle(tally, u, db, stack, scenario, log);

    // the follow-mode check runs last against the running Unleash: it adds events
    const latencies = await followFreshness(stack, peer, u, scenario);
    const p50 = pct(latencies, 50);
    const p99 = pct(latencies, 99);
    log(
      `follow mode: ${latencies.length} toggles, commit -> visible through the api: p50 ${p50} ms, p99 ${p99} ms, max ${Math.max(...latencies)} ms`,
    );
    if (Math.max(...latencies) > FRESHNESS_BOUND_MS) {
      failed = true;
      log(`FAIL: a toggle took longer than ${FRESHNESS_BOUND_MS} ms`);
    }

    // hosted mode: the same Unleash through its API into a second flaglens: the same event lists
    apiStack = await startStack('conformance_api');
    const viaApi = await connectOnce(apiStack, ['--api-url', peer.url, '--token', peer.adminToken]);
    log(`connector --api-url --once: ${JSON.stringify(viaApi)}`);
    await drained(apiStack);
    const apiTally = new Tally();
    const t1 = await createToken(stack.env, '1');
    const t2 = await createToken(apiStack.env, '1');
    const names = (
      await db.query<{ name: string }>(
        `SELECT DISTINCT feature_name AS name FROM events WHERE feature_name IS NOT NULL`,
      )
    ).rows;
    for (const { name } of names) {
      const path = `/api/admin/events/${encodeURIComponent(name)}`;
      const a = await flaglensGet(stack, path, t1);
      const b = await flaglensGet(apiStack, path, t2);
      if (JSON.stringify(a) === JSON.stringify(b))
        apiTally.match('API mode vs database mode', 'event list of every flag');
      else
        apiTally.differ('API mode vs database mode', {
          what: name,
          field: 'event list of every flag',
          unleash: a,
          flaglens: b,
        });
    }

    // a token the real Unleash refuses: exit 2, the token not printed
    const wrong = `*:*.${'0'.repeat(32)}refused`;
    const refused = await runCli(apiStack.env, [
      'source',
      'unleash',
      '--once',
      '--source-name',
      'refused',
      '--api-url',
      peer.url,
      '--token',
      wrong,
    ]).then(
      (r) => ({ code: 0, stderr: r.stderr, stdout: r.stdout }),
      (e: { code: number; stderr: string; stdout: string }) => e,
    );
    if (refused.code === 2 && !`${refused.stderr}${refused.stdout}`.includes(wrong))
      apiTally.match('API mode vs database mode', 'a refused token exits 2 (token not printed)');
    else
      apiTally.differ('API mode vs database mode', {
        what: 'refused token',
        field: 'a refused token exits 2 (token not printed)',
        unleash: 2,
        flaglens: refused.code,
      });

    process.stdout.write(
      `\n## flaglens vs Unleash ${version} (${scenario.flags.length} flags in the scenario, ${scenario.users.length} users, ${scenario.projects.length} projects)\n\n`,
    );
    process.stdout.write(tally.table() + '\n\n');
    process.stdout.write(apiTally.table() + '\n\n');
    process.stdout.write(
      `follow mode: ${latencies.length} toggles in Unleash visible through flaglens's api in p50 ${p50} ms, p99 ${p99} ms, max ${Math.max(...latencies)} ms (bound ${FRESHNESS_BOUND_MS} ms)\n`,
    );
    const explained = tally.differences.filter((d) => d.reason);
    if (explained.length > 0) {
      process.stdout.write(`\nexplained differences (flaglens differs on purpose):\n`);
      for (const d of explained)
        process.stdout.write(
          `- ${d.what} ${d.field}: Unleash ${JSON.stringify(d.unleash)} / flaglens ${JSON.stringify(d.flaglens)} (${d.reason})\n`,
        );
    }
    const bad = [...tally.unexplained, ...apiTally.unexplained];
    counts = {
      matched: tally.matched + apiTally.matched,
      explained: tally.differences.length - tally.unexplained.length,
      unexplained: bad.length,
    };
    if (bad.length > 0) {
      failed = true;
      process.stdout.write(`\n${bad.length} unexplained difference(s) against Unleash ${version}:\n`);
      for (const line of summarize(bad)) process.stdout.write(`${line}\n`);
    }
  } catch (e) {
    failed = true;
    const cause = (e as { cause?: Error }).cause;
    log(`Unleash ${version}: failed: ${(e as Error).message}${cause ? ` (${cause.message})` : ''}`);
    if (peer) log(`Unleash ${version}'s output, last lines:\n${peer.output.join('').slice(-3000)}`);
    process.stdout.write(`\nUnleash ${version}: the run failed: ${(e as Error).message}\n`);
  } finally {
    await db?.end().catch(() => undefined);
    await apiStack?.stop().catch(() => undefined);
    await stack?.stop().catch(() => undefined);
    await peer?.stop().catch(() => undefined);
  }
  const seconds = Math.round((Date.now() - t0) / 1000);
  log(`Unleash ${version}: ${failed ? 'FAILED' : 'passed'} in ${seconds} s`);
  return { version, ...counts, seconds, failed };
}

/** `--unleash <version>` (repeatable; `--unleash=<version>` too); all releases when absent. */
export function releasesFromArgs(argv: string[]): PeerVersion[] {
  const asked: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--unleash') asked.push(argv[++i] ?? '');
    else if (a.startsWith('--unleash=')) asked.push(a.slice('--unleash='.length));
  }
  for (const v of asked)
    if (!isPeerVersion(v))
      throw new Error(`--unleash ${v}: not a release the run knows (${PEER_VERSIONS.join(', ')})`);
  return asked.length ? (asked as PeerVersion[]) : [...PEER_VERSIONS];
}

async function main(): Promise<void> {
  if (process.argv.includes('--upgrade')) {
    // loaded here: upgrade.ts uses this module's compareAll and drained
    const { runUpgrade } = await import('./upgrade');
    const { steps, failed } = await runUpgrade(log);
    process.stdout.write(
      `\n## upgrade in place, flaglens following\n\n| Unleash | fields matched | explained deviations | unexplained | time |\n| --- | ---: | ---: | ---: | ---: |\n`,
    );
    for (const r of steps)
      process.stdout.write(
        `| ${r.version} | ${r.matched} | ${r.explained} | ${r.unexplained} | ${r.seconds} s |\n`,
      );
    log(`upgrade: ${failed ? 'FAILED' : 'passed'} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    process.exit(failed ? 1 : 0);
  }
  const releases = releasesFromArgs(process.argv.slice(2));
  const results: ReleaseResult[] = [];
  for (const version of releases) results.push(await runRelease(version));
  process.stdout.write(
    `\n## conformance per release\n\n| Unleash | fields matched | explained deviations | unexplained | time |\n| --- | ---: | ---: | ---: | ---: |\n`,
  );
  for (const r of results)
    process.stdout.write(
      `| ${r.version} | ${r.matched} | ${r.explained} | ${r.failed && r.unexplained === 0 ? 'run failed' : r.unexplained} | ${r.seconds} s |\n`,
    );
  const failed = results.some((r) => r.failed);
  log(`${failed ? 'FAILED' : 'passed'} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  process.exit(failed ? 1 : 0);
}

if (require.main === module)
  main().catch((e) => {
    log(`failed: ${(e as Error).message}`);
    process.exit(1);
  });
