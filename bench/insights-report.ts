/*
 * npm run bench:insights -- --database NAME [--runs N]
 *
 * The instance insights over every week it holds (the report GET /api/admin/insights answers without a range,
 * the clock at the log's newest event, nothing hidden) on a database a run left in place
 * (`npm run bench:scale -- --events N --keep`), read by the api's read model itself (InsightsReadModel with the
 * identity's member counts), N times each way (7 unless told):
 *  - `sideBySide`: its statements side by side, on a pool of the api's size (10), as the api reads it: the
 *    report's time, then JSON.stringify's, and the answer's bytes;
 *  - `oneByOne`: its statements one at a time on one connection: each statement's time from the client and its
 *    rows (the median run's), what the report spends outside them (the rows turned into the answer).
 * Nothing else should run meanwhile. Writes bench/results/insights-report-<UTC timestamp>.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import * as projections from '@flaglens/projections';
import { IdentityReadModel, InsightsReadModel } from '@flaglens/projections';
import { READ_SESSION_OPTIONS, type RowQueryable } from '@flaglens/persistence';
import { cliArgs } from '@flaglens/testing/support/cli-args';
import { activeSchema } from '@flaglens/testing/support/test-database';

const cli = cliArgs(process.argv.slice(2));
const DATABASE = cli.value('--database');
const RUNS = Number(cli.value('--runs') ?? 7);
if (!DATABASE || !/^[a-z_][a-z0-9_]*$/.test(DATABASE)) {
  console.error('--database NAME: the database a `bench:scale --keep` run left (its name, as it printed it)');
  process.exit(2);
}
if (!Number.isInteger(RUNS) || RUNS < 1) {
  console.error('--runs takes a whole number > 0');
  process.exit(2);
}

interface Statement {
  /** the name the read model exports the statement by (its first words when it exports none) */
  sql: string;
  ms: number;
  rows: number;
}

/** The statements the projections' package exports, by their text. */
const NAMES = new Map(
  Object.entries(projections)
    .filter(([name, v]) => typeof v === 'string' && name.endsWith('_SQL'))
    .map(([name, v]) => [v as string, name]),
);
const nameOf = (sql: string) => NAMES.get(sql) ?? sql.replace(/\s+/g, ' ').trim().slice(0, 120);

/** The pool's queries, each timed from the client; `oneByOne` sends the next only once the last has answered. */
function timedDb(pool: Pool, oneByOne: boolean, log: Statement[]): RowQueryable {
  let last: Promise<unknown> = Promise.resolve();
  return {
    query: async <T>(sql: string, params?: unknown[]): Promise<T[]> => {
      const before = last;
      const run = (async () => {
        if (oneByOne) await before.catch(() => undefined);
        const t = performance.now();
        const r = await pool.query(sql, params);
        log.push({
          sql: nameOf(sql),
          ms: performance.now() - t,
          rows: r.rowCount ?? 0,
        });
        return r.rows as T[];
      })();
      last = run;
      return run;
    },
  } as RowQueryable;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number) => Math.round(x * 10) / 10;

async function main(): Promise<void> {
  const url = `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
  const probe = new Pool({ connectionString: url, max: 1 });
  const schema = await activeSchema(probe);
  const [{ newest }] = (
    await probe.query<{ newest: Date }>(`SELECT max(created_at) AS newest FROM ${schema}.event_log`)
  ).rows;
  await probe.end();
  const now = new Date(newest);
  const result: Record<string, unknown> = {
    database: DATABASE,
    now: now.toISOString(),
    runs: RUNS,
    commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(),
  };
  for (const oneByOne of [false, true]) {
    const pool = new Pool({
      connectionString: url,
      max: oneByOne ? 1 : 10,
      options: `-c search_path=${schema} ${READ_SESSION_OPTIONS}`,
    });
    const times: number[] = [];
    const stringify: number[] = [];
    const logs: Statement[][] = [];
    let bytes = 0;
    // one report first, not counted: the connections opened and the buffers as warm as the runs after it
    for (let i = 0; i <= RUNS; i++) {
      const log: Statement[] = [];
      const db = timedDb(pool, oneByOne, log);
      const identity = new IdentityReadModel(db);
      const model = new InsightsReadModel(db, (ids) => identity.countMembersOfProjects(ids));
      const t = performance.now();
      const report = await model.report(now);
      const t2 = performance.now();
      const body = JSON.stringify(report);
      const t3 = performance.now();
      if (i === 0) continue;
      times.push(t2 - t);
      stringify.push(t3 - t2);
      logs.push(log);
      bytes = Buffer.byteLength(body);
    }
    await pool.end();
    const m = median(times);
    const arm: Record<string, unknown> = {
      reportMedianMs: round(m),
      reportMinMs: round(Math.min(...times)),
      reportMaxMs: round(Math.max(...times)),
      stringifyMedianMs: round(median(stringify)),
      answerBytes: bytes,
    };
    if (oneByOne) {
      const log = logs[times.indexOf(m)];
      const inStatements = log.reduce((s, x) => s + x.ms, 0);
      arm.statementsMs = round(inStatements);
      arm.outsideStatementsMs = round(m - inStatements);
      arm.statements = [...log].sort((a, b) => b.ms - a.ms).map((x) => ({ ...x, ms: round(x.ms) }));
    }
    result[oneByOne ? 'oneByOne' : 'sideBySide'] = arm;
    console.error(
      `[insights] ${oneByOne ? 'one by one' : 'side by side'}: ${JSON.stringify({ ...arm, statements: undefined })}`,
    );
  }
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `insights-report-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(result, null, 2));
  console.error(`[insights] written ${file}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
