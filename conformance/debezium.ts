/*
 * `npm run conformance:debezium`: the conformance scenario fed through Kafka Connect and Debezium instead of
 * our connector (docs/debezium.md).
 *
 * 1. a Postgres cluster of our own with wal_level=logical under .run/ (initdb, pg_ctl);
 * 2. the real Unleash 6.10.1 on a fresh database of that cluster; the shipped role, grants and publication
 *    (infra/connect/unleash-events.setup.sql);
 * 3. Kafka Connect in distributed mode (connect-runtime of our Kafka version, Maven Central) with the Debezium
 *    Postgres connector and the shipped config (infra/connect/unleash-events.connector.json);
 * 4. the scenario driven through Unleash's API while Debezium streams; the worker is killed (SIGKILL) in the
 *    middle of it and started again;
 * 5. `source debezium --once` repartitions Debezium's topic into a fresh flaglens running EVENT_FORMAT=debezium;
 * 6. every endpoint compared with Unleash (compare.ts), and every event id of Unleash projected exactly once;
 * 7. our connector (`source unleash --once`) into a second flaglens: every flag's event list identical.
 * Exits 1 on an unexplained difference, a lost or doubled event.
 */
import { join } from 'node:path';
import { Client } from 'pg';
import { createToken, runCli } from '@flaglens/testing/support/cli';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { BROKERS, testKafka } from '@flaglens/testing/support/test-kafka';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { fetchConnectJars } from '@flaglens/testing/support/kafka-connect';
import type { LocalPostgres } from '@flaglens/testing/support/local-postgres';
import { installPeer, startPeer, type Peer } from './unleash-peer';
import { driveScenario, UnleashClient } from './scenario';
import { EVENT_TYPES } from '@flaglens/contract';
import { compareAll, drained } from './run';
import { Tally } from './compare';
import { startDebezium, startLogicalPostgres, TopicTally, type DebeziumPath } from './debezium-path';

const started = Date.now();
const log = (m: string) =>
  process.stderr.write(`[conformance:debezium ${((Date.now() - started) / 1000).toFixed(1)}s] ${m}\n`);

async function main(): Promise<void> {
  installPeer(log);
  fetchConnectJars(log);
  const kafka = testKafka();
  let pg: LocalPostgres | undefined;
  let peer: Peer | undefined;
  let dbz: DebeziumPath | undefined;
  let stack: Stack | undefined;
  let ours: Stack | undefined;
  const tally = new TopicTally();
  let failed = false;
  try {
    pg = await startLogicalPostgres(join(__dirname, '..', '.run', 'conformance-debezium-pg'));
    log(`Postgres with wal_level=logical on port ${pg.port}`);
    peer = await startPeer(await freePort(), pg.url);
    log(`Unleash 6.10.1 up on ${peer.url} (database ${peer.db} on our logical cluster)`);
    dbz = await startDebezium(kafka, BROKERS, pg, peer.dbUrl, 'conf');
    log(`Kafka Connect (distributed) + Debezium running; topic ${dbz.topic}`);
    await tally.start(kafka, dbz.topic);

    // the scenario, with the Connect worker killed (SIGKILL) and restarted while Unleash writes
    const u = new UnleashClient(peer.url, peer.adminToken);
    const restart = (async () => {
      await waitFor('Debezium streaming the scenario', async () => tally.ids.size >= 40, {
        timeoutMs: 120_000,
        intervalMs: 50,
      });
      const seen = tally.ids.size;
      await dbz!.worker.kill();
      log(`Connect worker killed (SIGKILL) after ${seen} events streamed; Unleash keeps writing`);
      await new Promise((r) => setTimeout(r, 2000));
      await dbz!.worker.start();
      log('Connect worker started again');
      return seen;
    })();
    const scenario = await driveScenario(u, peer.adminPassword, log);
    const killedAt = await restart;
    const db = new Client({ connectionString: peer.dbUrl });
    await db.connect();
    const ids = (await db.query<{ id: number }>('SELECT id FROM events ORDER BY id')).rows.map((r) => r.id);
    await waitFor('Debezium carried every row of events', async () => ids.every((id) => tally.ids.has(id)), {
      timeoutMs: 120_000,
      intervalMs: 200,
    });
    const killedDuringScenario = killedAt < ids.length;
    log(
      `Debezium's topic: ${tally.messages} messages for ${ids.length} rows (${tally.duplicates} re-sent after the kill, ${tally.tombstones} tombstones)`,
    );

    // flaglens reading Debezium: repartitioned by the contract key, projected with EVENT_FORMAT=debezium
    stack = await startStack('conformance_dbz', { EVENT_FORMAT: 'debezium' });
    const relayStarted = Date.now();
    const relay = await runCli({ ...stack.env, LOG_LEVEL: 'warn' }, [
      'source',
      'debezium',
      '--from',
      dbz.topic,
      '--once',
    ]);
    log(`source debezium --once: ${relay.stdout.trim()} in ${Date.now() - relayStarted} ms`);
    // SDK usage is not in the events table: our connector carries it alone (--sdk-only), into the same topic
    const sdk = await runCli({ ...stack.env, LOG_LEVEL: 'warn' }, [
      'source',
      'unleash',
      '--sdk-only',
      '--once',
      '--database-url',
      peer.dbUrl,
    ]);
    log(`source unleash --sdk-only --once: ${sdk.stdout.trim()}`);
    await drained(stack);

    // nothing lost, nothing doubled: every event id of Unleash stored once (SDK usage has ids from 2^52 on);
    // rows of a type outside the contract dead-lettered (as on our connector's path), nothing else
    const stored = (
      await stack.db.query<{ id: string }>(`SELECT id FROM event_log WHERE id < 4503599627370496 ORDER BY id`)
    ).map((r) => Number(r.id));
    const dead = await stack.db.query<{ reason_code: string; reason: string }>(
      'SELECT reason_code, reason FROM dead_letters',
    );
    const deadIds = dead.length;
    const unknownIds = (
      await db.query<{ id: number }>(`SELECT id FROM events WHERE NOT (type = ANY($1::text[])) ORDER BY id`, [
        [...EVENT_TYPES],
      ])
    ).rows.map((r) => r.id);
    const contractIds = ids.filter((id) => !unknownIds.includes(id));
    const same = JSON.stringify(stored) === JSON.stringify(contractIds);
    const checks = new Tally();
    const g = 'Debezium path';
    const check = (field: string, ok: boolean, unleash: unknown, flaglens: unknown) =>
      ok ? checks.match(g, field) : checks.differ(g, { what: 'events', field, unleash, flaglens });
    check(
      'the Connect worker was killed while Unleash wrote',
      killedDuringScenario,
      `< ${ids.length}`,
      killedAt,
    );
    check(
      'every event id of Unleash projected exactly once (types outside the contract dead-lettered)',
      same,
      contractIds.length,
      stored.length,
    );
    check(
      'dead letters: the rows of types outside the contract, nothing else',
      dead.length === unknownIds.length && dead.every((d) => d.reason_code === 'unknown-type'),
      unknownIds.length,
      dead.map((d) => `${d.reason_code}: ${d.reason}`).slice(0, 5),
    );

    const t = new Tally();
    await compareAll(t, u, db, stack, scenario);

    // our connector into a second flaglens, the same run: every flag's event list identical
    ours = await startStack('conformance_dbz_ours');
    await runCli({ ...ours.env, LOG_LEVEL: 'warn' }, [
      'source',
      'unleash',
      '--once',
      '--database-url',
      peer.dbUrl,
    ]);
    await drained(ours);
    const t1 = await createToken(stack.env, '1');
    const t2 = await createToken(ours.env, '1');
    const names = (
      await db.query<{ name: string }>(
        `SELECT DISTINCT feature_name AS name FROM events WHERE feature_name IS NOT NULL ORDER BY 1`,
      )
    ).rows;
    for (const { name } of names) {
      const path = `/api/admin/events/${encodeURIComponent(name)}`;
      const a = await httpGet(stack.port, path, { authorization: t1 });
      const b = await httpGet(ours.port, path, { authorization: t2 });
      check('event list of every flag: Debezium path = our connector', a.text === b.text, b.text, a.text);
    }
    // the instance's event list (newest 100): Unleash may add events meanwhile (an SDK's application-created);
    // both paths are brought up to Unleash's newest row again before each comparison (at most 3 times)
    const syncBoth = async () => {
      const now = (await db.query<{ id: number }>('SELECT id FROM events ORDER BY id')).rows.map((r) => r.id);
      await waitFor('Debezium caught up', async () => now.every((id) => tally.ids.has(id)), {
        timeoutMs: 60_000,
      });
      await runCli({ ...stack!.env, LOG_LEVEL: 'warn' }, [
        'source',
        'debezium',
        '--from',
        dbz!.topic,
        '--once',
      ]);
      for (const [s, args] of [
        [stack!, ['--sdk-only']],
        [ours!, []],
      ] as const)
        await runCli({ ...s.env, LOG_LEVEL: 'warn' }, [
          'source',
          'unleash',
          '--once',
          ...args,
          '--database-url',
          peer!.dbUrl,
        ]);
      await drained(stack!);
      await drained(ours!);
    };
    for (const path of ['/api/admin/events', '/api/admin/user/profile']) {
      let a = await httpGet(stack.port, path, { authorization: t1 });
      let b = await httpGet(ours.port, path, { authorization: t2 });
      for (let i = 0; i < 3 && a.text !== b.text; i++) {
        log(`${path} differs: Unleash wrote meanwhile? both paths brought up to date again`);
        await syncBoth();
        a = await httpGet(stack.port, path, { authorization: t1 });
        b = await httpGet(ours.port, path, { authorization: t2 });
      }
      check(
        `${path}: Debezium path = our connector`,
        a.text === b.text,
        b.text.slice(0, 200),
        a.text.slice(0, 200),
      );
    }
    await db.end();

    process.stdout.write(
      `\n## flaglens through Kafka Connect + Debezium vs Unleash 6.10.1 (${scenario.flags.length} flags, ${scenario.users.length} users, ${scenario.projects.length} projects, ${ids.length} events; ${deadIds} dead-lettered)\n\n`,
    );
    process.stdout.write(t.table() + '\n\n');
    process.stdout.write(checks.table() + '\n\n');
    process.stdout.write(
      `Connect worker killed (SIGKILL) after ${killedAt} of ${ids.length} events, restarted: Debezium re-sent ${tally.duplicates}, flaglens stored each of the ${ids.length} once\n`,
    );
    const explained = t.differences.filter((d) => d.reason);
    if (explained.length > 0) {
      process.stdout.write(`\nexplained differences (flaglens differs on purpose):\n`);
      for (const d of explained)
        process.stdout.write(
          `- ${d.what} ${d.field}: Unleash ${JSON.stringify(d.unleash)} / flaglens ${JSON.stringify(d.flaglens)} (${d.reason})\n`,
        );
    }
    const bad = [...t.unexplained, ...checks.unexplained];
    if (bad.length > 0) {
      failed = true;
      process.stdout.write(`\n${bad.length} unexplained difference(s):\n`);
      for (const d of bad.slice(0, 40))
        process.stdout.write(
          `- ${d.what} ${d.field}: Unleash ${JSON.stringify(d.unleash)?.slice(0, 300)} / flaglens ${JSON.stringify(d.flaglens)?.slice(0, 300)}\n`,
        );
    }
  } catch (e) {
    // what Unleash printed last: a failure of the scenario's requests is most often Unleash gone
    if (peer) log(`Unleash's output, last lines:\n${peer.output.join('').split('\n').slice(-30).join('\n')}`);
    throw e;
  } finally {
    await tally.stop().catch(() => undefined);
    await ours?.stop().catch(() => undefined);
    await stack?.stop().catch(() => undefined);
    await dbz?.stop().catch(() => undefined);
    await peer?.stop().catch(() => undefined);
    pg?.stop();
  }
  log(`${failed ? 'FAILED' : 'passed'} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  // a failed fetch says only "fetch failed": its cause names the address and the error
  const cause = (e as Error).cause as { message?: string } | undefined;
  log(`failed: ${(e as Error).stack ?? String(e)}${cause?.message ? `\ncause: ${cause.message}` : ''}`);
  process.exit(1);
});
