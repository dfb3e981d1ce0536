import type { Pool, PoolClient } from 'pg';
import { assertSchemaName } from '@flaglens/persistence';

/** The consumer group a rebuild of `version` stores its positions under (in the new version's schema). */
export const rebuildGroupOf = (liveGroupId: string, version: number): string =>
  `${liveGroupId}.rebuild.v${version}`;

/** A partition's position as the projector stored it (`projector_offsets`). */
export interface StoredPosition {
  partition: number;
  nextOffset: number;
  /** the newest `createdAt` of the events it applied */
  lastEventAt: string | null;
  /** when it last moved */
  updatedAt: string | null;
  /** seconds since it last moved, by the database's clock (null: never stored; absent: not read) */
  idleSeconds?: number | null;
}

/** The events a group has applied: the sum of its partitions' next offsets. */
export const appliedOf = (positions: readonly { nextOffset: number }[]): number =>
  positions.reduce((n, p) => n + p.nextOffset, 0);

/** A group's next offset per partition in one projection version's schema (a rebuild follows its own and the live one). */
export async function positionsIn(
  db: Pool | PoolClient,
  schema: string,
  group: string,
  topic: string,
): Promise<Map<number, number>> {
  const r = await db.query<{ partition: number; next_offset: string }>(
    `SELECT partition, next_offset FROM ${assertSchemaName(schema)}.projector_offsets
      WHERE group_id = $1 AND topic = $2 ORDER BY partition`,
    [group, topic],
  );
  return new Map(r.rows.map((row) => [row.partition, Number(row.next_offset)]));
}

/** What the projector, a rebuild and the database say of a consumer group's progress, read at one instant. */
export interface ConsumerPositions {
  /** the active projection version */
  active: { version: number; schema: string } | null;
  /** the live group's stored positions, in the active version */
  positions: StoredPosition[];
  /**
   * The newest version a rebuild is building and the positions its group stored there (none while the
   * version's tables are not made yet); null when no rebuild runs.
   */
  rebuild: { version: number; schema: string; positions: { partition: number; nextOffset: number }[] } | null;
}

/**
 * The consumer groups' stored positions, read one way for every reader of them: the projector's progress
 * monitor (lag, stall, rebuild progress metrics), the console's Operations page and the CLI's `status`.
 * One transaction on a connection of the caller's (schema names qualified: any search path will do);
 * `timeoutMs`: lock and statement timeouts, so a stuck projector holding locks cannot stall the reader.
 */
export class ConsumerPositionsReadModel {
  constructor(private readonly connect: () => Promise<PoolClient>) {}

  async read(
    group: string,
    topic: string,
    { timeoutMs }: { timeoutMs?: number } = {},
  ): Promise<ConsumerPositions> {
    const client = await this.connect();
    let failed: Error | undefined;
    try {
      await client.query('BEGIN READ ONLY');
      if (timeoutMs !== undefined) {
        const ms = Math.max(1, Math.floor(timeoutMs));
        await client.query(`SET LOCAL lock_timeout = '${ms}ms'`);
        await client.query(`SET LOCAL statement_timeout = '${ms}ms'`);
      }
      const versions = (
        await client.query<{ version: number; schema_name: string; status: string }>(
          `SELECT version, schema_name, status FROM public.projection_versions
            WHERE status IN ('active', 'building') ORDER BY version`,
        )
      ).rows;
      const activeRow = versions.find((v) => v.status === 'active');
      const building = versions.filter((v) => v.status === 'building').at(-1);
      const active = activeRow ? { version: activeRow.version, schema: activeRow.schema_name } : null;
      const positions = active
        ? (
            await client.query<{
              partition: number;
              next_offset: string;
              last_event_at: Date | null;
              updated_at: Date | null;
              idle_seconds: number | null;
            }>(
              `SELECT partition, next_offset, last_event_at, updated_at,
                      EXTRACT(EPOCH FROM now() - updated_at)::float8 AS idle_seconds
                 FROM ${assertSchemaName(active.schema)}.projector_offsets
                WHERE group_id = $1 AND topic = $2 ORDER BY partition`,
              [group, topic],
            )
          ).rows.map((r): StoredPosition => ({
            partition: r.partition,
            nextOffset: Number(r.next_offset),
            lastEventAt: r.last_event_at?.toISOString() ?? null,
            updatedAt: r.updated_at?.toISOString() ?? null,
            idleSeconds: r.idle_seconds,
          }))
        : [];
      let rebuild: ConsumerPositions['rebuild'] = null;
      if (building) {
        rebuild = { version: building.version, schema: building.schema_name, positions: [] };
        // a version just registered may not have its tables yet: no progress then
        await client.query('SAVEPOINT rebuild');
        try {
          const stored = await positionsIn(
            client,
            building.schema_name,
            rebuildGroupOf(group, building.version),
            topic,
          );
          rebuild.positions = [...stored].map(([partition, nextOffset]) => ({ partition, nextOffset }));
        } catch {
          await client.query('ROLLBACK TO SAVEPOINT rebuild');
        }
      }
      await client.query('COMMIT');
      return { active, positions, rebuild };
    } catch (e) {
      failed = e as Error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      // a connection whose statement timed out mid-transaction is closed, not reused
      client.release(failed);
    }
  }
}
