import type { ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateHistory } from '@flaglens/testing/generate-history';
import { createToken, spawnCli } from '@flaglens/testing/support/cli';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startApp, stopApp } from '@flaglens/testing/support/processes';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { waitFor } from '@flaglens/testing/support/wait-for';

const NOW = '2026-11-22T09:01:00.000Z';

/** A read through one api: its path and its caller. */
type Read = { path: string; headers: Record<string, string> };

/**
 * A rebuild under reads (running apps, real Kafka and Postgres): two apis read throughout, one with the answer
 * cache (which follows the switch on the change feed) and one without (API_CACHE_MB=0: no change feed, only its
 * periodic check, which the drop comes before), the old version dropped at once after the switch, then (a second
 * rebuild) a second after it. No read fails, before, at or after the switch, until the old version is gone and
 * after; the answers after it are those of before, byte for byte.
 */
describe('rebuild under reads through the api', () => {
  let stack: Stack;
  let uncached: ChildProcess | undefined;
  let uncachedPort: number;
  const history = generateHistory({
    seed: 11,
    projects: 5,
    flagsPerProject: 30,
    events: 5000,
    weeks: 20,
    end: NOW,
    rich: true,
  });
  const flags = [...new Set(history.flatMap((e) => (e.featureName ? [e.featureName] : [])))].sort();
  const projects = [...new Set(history.flatMap((e) => (e.project ? [e.project] : [])))].sort();

  beforeAll(async () => {
    stack = await startStack('rebuild_reads', { FLAGLENS_CLOCK: NOW, LOG_LEVEL: 'warn' });
    uncachedPort = await freePort();
    uncached = startApp('api', { ...stack.env, PORT: String(uncachedPort), API_CACHE_MB: '0' }, stack.logs);
    const file = join(tmpdir(), `rebuild-reads-${process.pid}.ndjson`);
    writeFileSync(file, history.map((e) => JSON.stringify(e)).join('\n') + '\n');
    await stack.publish(file);
    rmSync(file);
    await stack.waitForEvents(history.length);
    await waitFor(
      'the uncached api up',
      async () => (await httpGet(uncachedPort, '/health/live').catch(() => ({ status: 0 }))).status === 200,
      { timeoutMs: 120000 },
    );
  });

  afterAll(async () => {
    if (uncached) await stopApp(uncached);
    await stack?.stop();
  });

  it('answers every read during the switch and the drop of the old version, the same answers after it', async () => {
    const admin = { authorization: await createToken(stack.env, 'admin') };
    const user = { authorization: await createToken(stack.env, '2') };
    const search = '/api/admin/search/events?environment=IS:production';
    // the projects with an overview (the history deletes some)
    const live: string[] = [];
    for (const p of projects)
      if ((await httpGet(stack.port, `/api/admin/projects/${p}/overview`, admin)).status === 200)
        live.push(p);
    expect(live.length).toBeGreaterThan(1);
    const compared: Read[] = [
      ...live.slice(0, 2).map((p) => ({ path: `/api/admin/projects/${p}/overview`, headers: admin })),
      { path: '/api/admin/user/profile', headers: admin },
      { path: '/api/admin/user/profile', headers: user },
      ...flags.slice(0, 2).map((f) => ({ path: `/api/admin/events/${f}`, headers: admin })),
      { path: search, headers: admin },
    ];
    const ports = { cached: stack.port, uncached: uncachedPort };
    const answersOf = async (port: number) => {
      const out: string[] = [];
      for (const r of compared) {
        const res = await httpGet(port, r.path, r.headers);
        out.push(`${res.status} ${r.path} ${res.text}`);
      }
      return out;
    };
    const before = { cached: await answersOf(ports.cached), uncached: await answersOf(ports.uncached) };
    for (const a of [...before.cached, ...before.uncached]) expect(a).toMatch(/^200 /);
    expect(before.uncached).toEqual(before.cached);

    // each api reads in turn, one request after another: an overview, a profile, a flag's events, a search
    const nth = (n: number): Read => {
      const k = Math.floor(n / 4);
      switch (n % 4) {
        case 0:
          return { path: `/api/admin/projects/${live[k % live.length]}/overview`, headers: admin };
        case 1:
          return { path: '/api/admin/user/profile', headers: k % 2 === 0 ? admin : user };
        case 2:
          return { path: `/api/admin/events/${flags[k % flags.length]}`, headers: admin };
        default:
          return { path: search, headers: admin };
      }
    };
    let reading = true;
    const failures: string[] = [];
    const done = { cached: 0, uncached: 0 };
    const reader = (name: keyof typeof ports) =>
      (async () => {
        while (reading) {
          const r = nth(done[name]);
          const res = await httpGet(ports[name], r.path, r.headers).catch((e: Error) => ({
            status: 0,
            text: e.message,
          }));
          done[name]++;
          if (res.status < 200 || res.status >= 300)
            failures.push(`${name}: GET ${r.path} → ${res.status} ${res.text.slice(0, 200)}`);
        }
      })();
    const readers = [reader('cached'), reader('uncached')];

    // two rebuilds: the old version dropped at once after the switch, then a second after it (as the bench
    // runs it): sooner than the uncached api's check of every 5 s, and with statements still in flight
    const rounds: {
      dropAfter: string;
      code: number | string;
      output: string;
      switched: string;
      gone: boolean;
    }[] = [];
    try {
      for (const dropAfter of ['0', '1']) {
        const rebuild = spawnCli(stack.env, ['rebuild', '--json', '--drop-old-after', dropAfter]);
        const code = await rebuild.exited;
        const [{ gone }] = await stack.db.query<{ gone: boolean }>(
          'SELECT to_regnamespace($1) IS NULL AS gone',
          [`flaglens_v${rounds.length + 1}`],
        );
        const summary = rebuild.output
          .join('')
          .split('\n')
          .filter((l) => l.startsWith('{') && l.includes('"switched"'))
          .pop();
        const r = JSON.parse(summary ?? '{}') as {
          switched?: boolean;
          previous?: { schema: string };
          version?: { schema: string };
        };
        rounds.push({
          dropAfter,
          code,
          output: code === 0 ? '' : rebuild.output.join(''),
          switched: `${r.previous?.schema} → ${r.version?.schema}: ${r.switched}`,
          gone,
        });
        // reads go on after the drop: each api answers two rounds of every read on the new version
        const after = { ...done };
        await waitFor(
          'reads on each api after the drop',
          async () => done.cached >= after.cached + 8 && done.uncached >= after.uncached + 8,
          { timeoutMs: 60000 },
        );
      }
    } finally {
      reading = false;
      await Promise.all(readers);
    }

    expect(rounds).toEqual([
      { dropAfter: '0', code: 0, output: '', switched: 'flaglens_v1 → flaglens_v2: true', gone: true },
      { dropAfter: '1', code: 0, output: '', switched: 'flaglens_v2 → flaglens_v3: true', gone: true },
    ]);
    expect(done.cached).toBeGreaterThan(40);
    expect(done.uncached).toBeGreaterThan(40);
    // the failed reads, with what the apis said of them (their cause)
    expect({
      failures: failures.slice(0, 10),
      count: failures.length,
      said: failures.length
        ? stack.logs
            .join('')
            .split('\n')
            .filter((l) => /error/i.test(l))
            .slice(0, 10)
        : [],
    }).toEqual({ failures: [], count: 0, said: [] });
    expect({ cached: await answersOf(ports.cached), uncached: await answersOf(ports.uncached) }).toEqual(
      before,
    );
  });
});
