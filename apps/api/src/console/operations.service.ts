import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Admin } from 'kafkajs';
import { AppConfig } from '@flaglens/config';
import { createKafka, type PartitionWatermarks } from '@flaglens/kafka';
import {
  deadLetterDetail,
  deadLetterSummary,
  DeadLettersReadModel,
  operationsPartitions,
  type DeadLetterDetail,
  type OperationsStatus,
} from '@flaglens/operations';
import { assertSchemaName, rowsVia } from '@flaglens/persistence';
// the small modules, not the packages' indexes: the api loads no consumer or connector code
import { rebuildGroupOf } from '@flaglens/pipeline/rebuild-group';
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
    const q = async <T>(sql: string, params: unknown[] = []): Promise<T[]> =>
      (await pool.query(sql, params)).rows as T[];
    const deadLetters = new DeadLettersReadModel(rowsVia(this.reads));
    let marks: PartitionWatermarks[] | null = null;
    let brokerError: string | null = null;
    const [marksResult, versions, stored, counts, latest, sources] = await Promise.all([
      this.watermarks().catch((e: Error) => {
        brokerError = e.message;
        return null;
      }),
      q<{ version: number; schema_name: string; status: string }>(
        `SELECT version, schema_name, status FROM public.projection_versions WHERE status IN ('active', 'building') ORDER BY version`,
      ),
      q<{ partition: number; next_offset: string; last_event_at: Date | null; updated_at: Date | null }>(
        `SELECT partition, next_offset, last_event_at, updated_at FROM projector_offsets WHERE group_id = $1 AND topic = $2`,
        [group, topic],
      ),
      deadLetters.counts(),
      deadLetters.list({ limit: 50, order: 'newest' }),
      PositionStore.list(async (sql) => (await pool.query(sql)).rows as unknown[]),
    ]);
    marks = marksResult;
    const nowMs = Date.now();
    const partitions = operationsPartitions(
      marks,
      stored.map((s) => ({
        partition: s.partition,
        nextOffset: Number(s.next_offset),
        lastEventAt: s.last_event_at?.toISOString() ?? null,
        updatedAt: s.updated_at?.toISOString() ?? null,
      })),
      nowMs,
      stallSeconds,
    );
    const active = versions.find((v) => v.status === 'active');
    const building = versions.filter((v) => v.status === 'building').at(-1);
    let rebuild: OperationsStatus['rebuild'] = null;
    if (building) {
      const mine = await q<{ n: string }>(
        `SELECT COALESCE(sum(next_offset), 0) AS n FROM ${assertSchemaName(building.schema_name)}.projector_offsets
          WHERE group_id = $1 AND topic = $2`,
        [rebuildGroupOf(group, building.version), topic],
      ).catch(() => [{ n: '0' }]);
      const applied = Number(mine[0].n);
      const target = (marks ?? []).reduce((n, m) => n + m.high, 0);
      rebuild = {
        version: building.version,
        schema: building.schema_name,
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
      projectionVersion: active ? { version: active.version, schema: active.schema_name } : null,
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
