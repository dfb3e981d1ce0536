/*
 * Where does a batch's time go? Applies a history straight through the projector's BatchApplier (no Kafka),
 * in batches of a given size, and prints events/s, seconds per stage (event log, each projection, offsets,
 * commit) and the rest (JavaScript between the statements).
 *
 *   npx ts-node -r tsconfig-paths/register --transpile-only bench/profile-apply.ts [--rich] [--events N] [--batch N]
 *   node --cpu-prof -r ts-node/register/transpile-only -r tsconfig-paths/register bench/profile-apply.ts --rich
 */
import 'reflect-metadata';
import { Database, searchPathOption } from '@flaglens/persistence';
import { eventKey } from '@flaglens/contract';
import { allProjections, eventLogCopyChunk } from '@flaglens/projections';
import { profileHistory } from './profile-history';
import { median } from './stats';
import { BatchApplier, classifyMessages } from '@flaglens/pipeline';
import { createTestDatabase } from '@flaglens/testing/support/test-database';
import { cliArgs } from '@flaglens/testing/support/cli-args';

const args = cliArgs();
const EVENTS = Number(args.value('--events') ?? 200_000);
const BATCH = Number(args.value('--batch') ?? 2000);
const rich = args.has('--rich');

async function main(): Promise<void> {
  const history = profileHistory(EVENTS, rich);
  const db = await createTestDatabase('profile');
  const schema = (await db.query<{ s: string }>(`SELECT current_schema() AS s`))[0].s;
  const ds = new Database({
    url: db.url,
    max: 2,
    options: searchPathOption(schema),
    prepared: !process.env.PROFILE_UNPREPARED, // as the projector runs; the variable: as before
  });
  const stages = new Map<string, number>();
  const cpu = new Map<string, number>();
  const dbCpu = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number | undefined) =>
    v !== undefined && m.set(k, (m.get(k) ?? 0) + v);
  const applier = new BatchApplier(
    ds,
    'profile',
    { kind: 'active' },
    allProjections(),
    () => undefined,
    (stage, s, cost) => {
      add(stages, stage, s);
      add(cpu, stage, cost.cpuSeconds);
      add(dbCpu, stage, cost.dbCpuSeconds);
    },
  );
  const classify = applier.timer.sync('classify', classifyMessages);
  try {
    let offset = await applier.loadPosition('profile', 0);
    const t0 = process.hrtime.bigint();
    const cpu0 = process.cpuUsage().user + process.cpuUsage().system;
    let classifySeconds = 0;
    for (let i = 0; i < history.length; i += BATCH) {
      const c0 = process.hrtime.bigint();
      const messages = history.slice(i, i + BATCH).map((e, k) => ({
        offset: offset + k,
        key: Buffer.from(eventKey(e) ?? ''),
        value: Buffer.from(JSON.stringify(e)),
      }));
      const { accepted, dead } = classify('profile', 0, messages, {
        allowUnknownTypes: false,
        maxBytes: 1 << 20,
      });
      classifySeconds += Number(process.hrtime.bigint() - c0) / 1e9;
      const next = offset + messages.length;
      await applier.apply({
        topic: 'profile',
        partition: 0,
        expectedOffset: offset,
        nextOffset: next,
        accepted,
        dead,
      });
      offset = next;
    }
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const processCpu = (process.cpuUsage().user + process.cpuUsage().system - cpu0) / 1e6;
    const inStages = [...stages.values()].reduce((a, b) => a + b, 0) - (stages.get('classify') ?? 0);
    console.log(
      `${history.length} ${rich ? 'rich ' : ''}events in batches of ${BATCH}: ${seconds.toFixed(1)} s, ${Math.round(history.length / seconds)} events/s`,
    );
    const us = (v: number | undefined) =>
      v === undefined ? '     -' : ((1e6 * v) / history.length).toFixed(2).padStart(6);
    console.log(`  ${'stage'.padEnd(22)} ${'wall'.padStart(7)}         node µs/event  postgres µs/event`);
    for (const [k, v] of [...stages.entries()].sort((a, b) => b[1] - a[1]))
      console.log(
        `  ${k.padEnd(22)} ${v.toFixed(2).padStart(7)} s  ${((100 * v) / seconds).toFixed(1).padStart(5)}%  ${us(cpu.get(k))}         ${us(dbCpu.get(k))}`,
      );
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    console.log(
      `  ${'(all stages)'.padEnd(22)} ${''.padStart(17)}  ${us(sum(cpu))}         ${us(sum(dbCpu))}; whole process ${us(processCpu)} µs/event`,
    );
    // the JavaScript part of the event-log stage: its COPY data, built again here on its own from the values
    // as produced (the projector copies each value's bytes into the data)
    const sourced = history.map((e) => ({
      event: e,
      knownType: true,
      topic: 'profile',
      partition: 0,
      offset: 0,
      raw: Buffer.from(JSON.stringify(e)),
    }));
    // five passes, the median: one pass is too short to say much on a shared machine
    const passes: number[] = [];
    let text = 0;
    for (let pass = 0; pass < 5; pass++) {
      const c0 = process.hrtime.bigint();
      text = 0;
      for (let i = 0; i < sourced.length; i += 256)
        text += eventLogCopyChunk(sourced, i, Math.min(i + 256, sourced.length)).length;
      passes.push(Number(process.hrtime.bigint() - c0) / 1e9);
    }
    const copyTextSeconds = median(passes);
    console.log(
      `  ${'(of event-log: text)'.padEnd(22)} ${copyTextSeconds.toFixed(2).padStart(7)} s  ${((1e6 * copyTextSeconds) / history.length).toFixed(2)} µs/row (median of 5 passes), ${Math.round(text / history.length)} bytes/row`,
    );
    console.log(`  ${'(parse + classify)'.padEnd(22)} ${classifySeconds.toFixed(2).padStart(7)} s`);
    console.log(
      `  ${'(rest: js, scope)'.padEnd(22)} ${(seconds - inStages - classifySeconds).toFixed(2).padStart(7)} s`,
    );
  } finally {
    await ds.end();
    await db.drop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
