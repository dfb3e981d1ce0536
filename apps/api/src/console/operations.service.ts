import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Admin } from 'kafkajs';
import { AppConfig } from '@flaglens/config';
import { createKafka, type PartitionWatermarks } from '@flaglens/kafka';
import {
  appliedOf,
  ConsumerPositionsReadModel,
  deadLetterDetail,
  deadLetterSummary,
  DeadLettersReadModel,
  operationsPartitions,
  type DeadLetterDetail,
  type OperationsStatus,
} from '@flaglens/operations';
import { rowsVia } from '@flaglens/persistence';
// the small module, not the package's index: the api loads no connector code
import { PositionStore } from '@flaglens/source/position-store';
import { ProjectionReads } from '../read-db/projection-reads.service';

/** Answers are computed at most this often, however many operators' pages poll. */
const CACHE_MS = 2000;

/**
 * What the CLI's `status` shows, for the console's Operations page, read by the api where it lives: the
 * positions, dead letters, connectors and versions from Postgres (tables the projector, the connector and a
 * rebuild write), the high-water marks from the broker (one admin connection, kept). No call reaches the
 * projector's process: the page works whichever projector instance (or none) runs.
 */
@Injectable()
export class OperationsService implements OnModuleDestroy {
  private admin?: Promise<Admin>;
  private last?: { at: number; value: Promise<OperationsStatus> };

  constructor(
    private readonly config: AppConfig,
    private readonly reads: ProjectionReads,
  ) {}

  status(): Promise<OperationsStatus> {
    const now = Date.now();
    if (this.last && now - this.last.at < CACHE_MS) return this.last.value;
    const value = this.compute();
    this.last = { at: now, value };
    value.catch(() => (this.last = undefined));
    return value;
  }

  async deadLetter(id: number): Promise<DeadLetterDetail | null> {
    const d = await new DeadLettersReadModel(rowsVia(this.reads)).get(id);
    return d && deadLetterDetail(d);
  }

  private async watermarks(): Promise<PartitionWatermarks[]> {
    this.admin ??= (async () => {
      const kafka = createKafka({
        brokers: this.config.KAFKA_BROKERS,
        clientId: `${this.config.KAFKA_CLIENT_ID}-api-operations`,
        retries: 0,
        log: () => undefined,
      });
      const admin = kafka.admin();
      await admin.connect();
      return admin;
    })();
    try {
      const admin = await this.admin;
      const offsets = await admin.fetchTopicOffsets(this.config.KAFKA_TOPIC);
      return offsets
        .map((o) => ({ partition: o.partition, low: Number(o.low), high: Number(o.high) }))
        .sort((a, b) => a.partition - b.partition);
    } catch (e) {
      const admin = this.admin;
      this.admin = undefined;
      void admin.then((a) => a.disconnect()).catch(() => undefined);
      throw e;
    }
  }

  private async compute(): Promise<OperationsStatus> {
    const { KAFKA_TOPIC: topic, KAFKA_GROUP_ID: group, PROJECTOR_STALL_SECONDS: stallSeconds } = this.config;
    const pool = this.reads.pool();
    const deadLetters = new DeadLettersReadModel(rowsVia(this.reads));
    let marks: PartitionWatermarks[] | null = null;
    let brokerError: string | null = null;
    const [marksResult, consumer, counts, latest, sources] = await Promise.all([
      this.watermarks().catch((e: Error) => {
        brokerError = e.message;
        return null;
      }),
      new ConsumerPositionsReadModel(() => pool.connect()).read(group, topic),
      deadLetters.counts(),
      deadLetters.list({ limit: 50, order: 'newest' }),
      PositionStore.list(async (sql) => (await pool.query(sql)).rows as unknown[]),
    ]);
    marks = marksResult;
    const nowMs = Date.now();
    const partitions = operationsPartitions(marks, consumer.positions, nowMs, stallSeconds);
    const { active, rebuild: building } = consumer;
    let rebuild: OperationsStatus['rebuild'] = null;
    if (building) {
      const applied = appliedOf(building.positions);
      const target = (marks ?? []).reduce((n, m) => n + m.high, 0);
      rebuild = {
        version: building.version,
        schema: building.schema,
        applied,
        target,
        percent: target > 0 ? Math.min(100, Math.round((applied / target) * 1000) / 10) : 0,
      };
    }
    return {
      at: new Date(nowMs).toISOString(),
      topic,
      group,
      stallSeconds,
      broker: { ok: marks !== null, error: brokerError },
      projectionVersion: active,
      partitions,
      lag: marks ? partitions.reduce((n, p) => n + (p.lag ?? 0), 0) : null,
      sources: sources.map((x) => ({
        source: x.source,
        origin: x.origin,
        state: x.status?.state ?? 'unknown',
        position: x.position.hwm ?? null,
        lagRows: x.status?.lagRows ?? null,
        lagSeconds: x.status?.lagSeconds ?? null,
        openGaps: x.status?.openGaps ?? 0,
        lastPollAt: x.status?.lastPollAt ?? null,
        updatedAt: x.updatedAt,
      })),
      deadLetters: { ...counts, latest: latest.map(deadLetterSummary) },
      rebuild,
    };
  }

  async onModuleDestroy(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    if (admin) await admin.then((a) => a.disconnect()).catch(() => undefined);
  }
}
