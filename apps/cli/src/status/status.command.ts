import { Command, CommandRunner, Option } from 'nest-commander';
import { AssignerProtocol } from 'kafkajs';
import { AppConfig } from '@flaglens/config';
import { createKafka, topicWatermarks, kafkaSecurity } from '@flaglens/kafka';
import { CliDatabase } from '../cli-database';
import { ConsumerPositionsReadModel, DeadLettersReadModel } from '@flaglens/operations';
import { partitionStatus, statusProblems } from './consumer-status';

/** The exit code of `status` when a partition is stalled or the consumer group is empty. */
export const STATUS_UNHEALTHY = 3;
const SECOND_LOOK_MS = 3000;
import { terminalJson, terminalText } from '../terminal-text';
import { PositionStore } from '@flaglens/source';
import { answeringRelease } from '@flaglens/contract';

/**
 * `status [--json] [--stall-seconds <s>]`: per partition the stored offset (active version, the live group),
 * the high-water mark, the lag and the last event time; the group's members and their partitions; the active
 * projection version; the Unleash release flaglens answers as (the one the topic last said, else the newest
 * supported); dead letters; the source connectors (their stored position, last status and the release found).
 *
 * Usable as a check: exit code 3 (STATUS_UNHEALTHY) when the consumer group has no member or a partition is
 * stalled (consumer-status.ts `statusProblems`), each problem on stderr (in `problems` with `--json`).
 */
@Command({
  name: 'status',
  description:
    'Lag per partition, consumer group members, projection version, dead letters; exit code 3 when a partition is stalled or the group has no member',
})
export class StatusCommand extends CommandRunner {
  constructor(
    private readonly database: CliDatabase,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], flags: { json?: boolean; stallSeconds?: number }): Promise<void> {
    const { KAFKA_TOPIC: topic, KAFKA_GROUP_ID: group } = this.config;
    const kafka = createKafka({
      brokers: this.config.KAFKA_BROKERS,
      security: kafkaSecurity(this.config),
      clientId: `${this.config.KAFKA_CLIENT_ID}-cli`,
      log: () => undefined,
    });
    const admin = kafka.admin();
    try {
      const db = await this.database.get();
      const consumer = new ConsumerPositionsReadModel(() => db.connect());
      const positions = async () => (await consumer.read(group, topic)).positions;
      const { active: version, positions: stored } = await consumer.read(group, topic);
      const [said] = version
        ? ((await db.query(
            `SELECT r.release, r.event_id::text AS event_id, r.recorded_at FROM (SELECT 1) x
               LEFT JOIN LATERAL (SELECT release, event_id, recorded_at FROM ${version.schema}.unleash_release) r ON true
              WHERE to_regclass($1) IS NOT NULL`,
            [`${version.schema}.unleash_release`],
          )) as { release: string | null; event_id: string | null; recorded_at: Date | null }[])
        : [];
      const unleash = {
        release: said?.release ?? null,
        eventId: said?.event_id === null || said?.event_id === undefined ? null : Number(said.event_id),
        recordedAt: said?.recorded_at?.toISOString() ?? null,
        answeringAs: answeringRelease(said?.release),
      };
      const counts = await new DeadLettersReadModel(db).counts();
      // pending ones by reason code
      const deadLetters = {
        total: counts.total,
        pending: counts.pending,
        byReason: Object.fromEntries(counts.byReason.map((r) => [r.reason, r.pending])),
      };
      const sources = (await PositionStore.list((sql) => db.query(sql) as Promise<unknown[]>)).map((x) => ({
        source: x.source,
        origin: x.origin,
        hwm: x.position.hwm,
        openGaps: x.status?.openGaps ?? 0,
        state: x.status?.state ?? 'unknown',
        lagRows: x.status?.lagRows ?? null,
        lagSeconds: x.status?.lagSeconds ?? null,
        newestId: x.status?.newestId ?? null,
        lastPollAt: x.status?.lastPollAt ?? null,
        produced: x.status?.produced ?? 0,
        sdkProduced: x.status?.sdkProduced ?? 0,
        release: x.status?.release ?? null,
        updatedAt: x.updatedAt,
      }));
      const partitions = partitionStatus(await topicWatermarks(kafka, topic), stored);
      await admin.connect();
      const described = await admin.describeGroups([group]);
      const g = described.groups[0];
      const members = (g?.members ?? []).map((m) => {
        const assignment = m.memberAssignment?.length
          ? AssignerProtocol.MemberAssignment.decode(m.memberAssignment)
          : null;
        return {
          memberId: m.memberId,
          clientId: m.clientId,
          host: m.clientHost,
          partitions: [...(assignment?.assignment[topic] ?? [])].sort((a, b) => a - b),
        };
      });
      const stallSeconds = flags.stallSeconds ?? this.config.PROJECTOR_STALL_SECONDS;
      let problems = statusProblems(partitions, members.length, stallSeconds);
      if (problems.some((p) => p.startsWith('partition '))) {
        // a partition idle for long may just have been sent a message: stalled only if it does not move
        await new Promise((r) => setTimeout(r, SECOND_LOOK_MS));
        const before = new Map(stored.map((p) => [p.partition, p.nextOffset]));
        const moved = new Set(
          (await positions()).filter((p) => before.get(p.partition) !== p.nextOffset).map((p) => p.partition),
        );
        problems = statusProblems(partitions, members.length, stallSeconds, moved);
      }
      // a check (cron, a probe, CI): a non-zero exit code when unhealthy, once the report is printed
      if (problems.length > 0) process.exitCode = STATUS_UNHEALTHY;
      const status = {
        topic,
        healthy: problems.length === 0,
        problems,
        group: { id: group, state: g?.state ?? 'unknown', members },
        projectionVersion: version ? { version: version.version, schema: version.schema } : null,
        unleash,
        lag: partitions.reduce((n, p) => n + p.lag, 0),
        partitions,
        deadLetters,
        sources,
      };
      if (flags.json) {
        process.stdout.write(terminalJson(status) + '\n');
        return;
      }
      for (const p of problems) process.stderr.write(`flaglens status: unhealthy: ${p}\n`);
      const out: string[] = [];
      out.push(
        `topic ${topic}, group ${group} (${status.group.state}), projection version ${version?.version ?? 'none'}`,
      );
      out.push(
        unleash.release === null
          ? `unleash release: unknown (no event said which), answering as ${unleash.answeringAs} (the newest supported)`
          : `unleash release: ${unleash.release} (said by event ${unleash.eventId}), answering as ${unleash.answeringAs}`,
      );
      out.push('partition\tstored\thigh\tlag\tlast event');
      for (const p of partitions)
        out.push(
          `${p.partition}\t${p.storedOffset ?? '-'}\t${p.highWatermark}\t${p.lag}\t${p.lastEventAt ?? '-'}`,
        );
      out.push(`total lag ${status.lag}`);
      out.push(`members: ${members.length === 0 ? 'none (no projector running)' : ''}`);
      for (const m of members)
        out.push(`  ${m.clientId} ${m.host} partitions ${m.partitions.join(',') || '-'}`);
      out.push(
        `dead letters: ${deadLetters.pending} pending of ${deadLetters.total}` +
          (Object.keys(deadLetters.byReason).length
            ? ` (${Object.entries(deadLetters.byReason)
                .map(([k, n]) => `${k} ${n}`)
                .join(', ')})`
            : ''),
      );
      if (sources.length === 0) out.push('sources: none (npm run cli -- source unleash ...)');
      for (const x of sources)
        out.push(
          `source ${x.source} (${x.origin}): ${x.state}, position ${x.hwm}, lag ${x.lagRows ?? '-'} row(s) / ` +
            `${x.lagSeconds ?? '-'} s, ${x.openGaps} open gap id(s), last poll ${x.lastPollAt ?? '-'}, ` +
            `Unleash release ${x.release ?? 'unknown'}`,
        );
      // member ids, client ids and hosts come from any Kafka client; reason codes and sources from tables
      process.stdout.write(out.map(terminalText).join('\n') + '\n');
    } finally {
      await admin.disconnect().catch(() => undefined);
      await this.database.close();
    }
  }

  @Option({ flags: '--json', description: 'print JSON' })
  parseJson(): boolean {
    return true;
  }

  @Option({
    flags: '--stall-seconds <seconds>',
    description:
      'a partition behind whose position has not moved for this long is stalled (default PROJECTOR_STALL_SECONDS, 60)',
  })
  parseStallSeconds(v: string): number {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error('--stall-seconds takes a positive number of seconds');
    return n;
  }
}
