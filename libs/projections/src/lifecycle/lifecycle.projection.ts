import type { PoolClient } from 'pg';
import type { FlagEvent } from '@flaglens/contract';
import type { Projection, ProjectionContext, SourcedEvent } from '../projection';
import { updateKeyedRows, type KeyedTable } from '../keyed-rows';
import {
  LIFECYCLE_FLAG_TYPES,
  mergeSpans,
  reduceLifecycleFlags,
  sightingsOf,
  type ClosedSpan,
  type LifecycleFlagRow,
} from './lifecycle.logic';

export const LIFECYCLE_FLAGS_TABLE: KeyedTable<LifecycleFlagRow> = {
  table: 'lifecycle_flags',
  columns: [
    { field: 'name', column: 'name', type: 'text' },
    { field: 'startedAt', column: 'started_at', type: 'timestamptz' },
    { field: 'completedAt', column: 'completed_at', type: 'timestamptz' },
    { field: 'completedStatus', column: 'completed_status', type: 'text' },
    { field: 'archivedAt', column: 'archived_at', type: 'timestamptz' },
    { field: 'deleted', column: 'deleted', type: 'boolean' },
    { field: 'enables', column: 'enables', type: 'json' },
  ],
};

/**
 * Each flag's lifecycle facts (`lifecycle_flags`, from its own events; the spans of being enabled that a
 * disable closed in `lifecycle_enable_spans`, one row each, so a toggle writes one small row, not the flag's
 * whole history) and its SDK sightings
 * (`lifecycle_sightings`, from `client-metrics`, keyed `instance`): the stages are derived from both, with
 * the environments' current types, when read (`lifecycle.read-model.ts`), so the rows do not depend on how
 * the flag's events and the reports interleave.
 */
export class LifecycleProjection implements Projection {
  readonly name = 'lifecycle';
  readonly writes = ['lifecycle_flags', 'lifecycle_enable_spans', 'lifecycle_sightings'];
  readonly scope = 'flags';

  handles(type: string): boolean {
    return type === 'client-metrics' || LIFECYCLE_FLAG_TYPES.has(type);
  }

  /** The flag of a flag event; the flags a report names. */
  keysOf(e: FlagEvent): readonly string[] {
    if (e.type === 'client-metrics')
      return [...new Set([...sightingsOf([e]).values()].map((s) => s.featureName))];
    return e.featureName ? [e.featureName] : [];
  }

  async apply(client: PoolClient, sourced: SourcedEvent[], _context: ProjectionContext): Promise<void> {
    const events = sourced.map((s) => s.event);
    const flagEvents = events.filter((e) => e.featureName && LIFECYCLE_FLAG_TYPES.has(e.type));
    if (flagEvents.length > 0) {
      const names = [...new Set(flagEvents.map((e) => e.featureName!))];
      const { closed, reset } = await updateKeyedRows(client, LIFECYCLE_FLAGS_TABLE, names, (current) =>
        reduceLifecycleFlags(current, flagEvents),
      );
      // the rows of these flags are locked above: their spans are written by this batch alone
      if (reset.length > 0)
        await client.query(`DELETE FROM lifecycle_enable_spans WHERE feature_name = ANY($1::text[])`, [
          reset,
        ]);
      if (closed.length > 0) await storeClosedSpans(client, closed);
    }
    const seen = [...sightingsOf(events.filter((e) => e.type === 'client-metrics')).values()].sort((a, b) =>
      a.featureName < b.featureName
        ? -1
        : a.featureName > b.featureName
          ? 1
          : a.environment < b.environment
            ? -1
            : a.environment > b.environment
              ? 1
              : 0,
    );
    if (seen.length === 0) return;
    // in key order, so concurrent batches lock shared rows in one order
    await client.query(
      `INSERT INTO lifecycle_sightings AS t (feature_name, environment, first_at, last_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[])
       ON CONFLICT (feature_name, environment) DO UPDATE
         SET first_at = LEAST(t.first_at, EXCLUDED.first_at), last_at = GREATEST(t.last_at, EXCLUDED.last_at)`,
      [
        seen.map((s) => s.featureName),
        seen.map((s) => s.environment),
        seen.map((s) => s.first),
        seen.map((s) => s.last),
      ],
    );
  }
}

/**
 * Stores the spans a batch closed, merged with the stored ones they overlap (`mergeSpans`: the stored spans of a
 * flag and environment never overlap, which the read's one-probe lookup relies on, `LIFECYCLE_LIVE_SPAN_SQL`). As
 * they never overlap, the stored spans a new one overlaps start at or after the last one starting at or before
 * it, and before its end: a range of the key, however long the flag's history. A span repeated (the same
 * instants, from events stored late) is merged into itself.
 */
async function storeClosedSpans(client: PoolClient, closed: readonly ClosedSpan[]): Promise<void> {
  const overlapped = await client.query<{
    feature_name: string;
    environment: string;
    from_at: Date;
    to_at: Date;
  }>(
    `DELETE FROM lifecycle_enable_spans s
      USING (SELECT n.*, COALESCE(p.from_at, '-infinity') AS lo
               FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[]) AS n(name, environment, a, b)
               LEFT JOIN LATERAL (SELECT from_at FROM lifecycle_enable_spans p
                                   WHERE p.feature_name = n.name AND p.environment = n.environment AND p.from_at <= n.a
                                   ORDER BY p.from_at DESC LIMIT 1) p ON true) n
      WHERE s.feature_name = n.name AND s.environment = n.environment
        AND s.from_at >= n.lo AND s.from_at < n.b AND s.to_at > n.a
     RETURNING s.feature_name, s.environment, s.from_at, s.to_at`,
    spanColumns(closed),
  );
  const spans = mergeSpans([
    ...closed,
    ...overlapped.rows.map((r) => ({
      name: r.feature_name,
      environment: r.environment,
      from: r.from_at.toISOString(),
      to: r.to_at.toISOString(),
    })),
  ]);
  await client.query(
    `INSERT INTO lifecycle_enable_spans (feature_name, environment, from_at, to_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[])`,
    spanColumns(spans),
  );
}

/** Spans as the four arrays an `unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[])` takes. */
const spanColumns = (spans: readonly ClosedSpan[]): string[][] => [
  spans.map((c) => c.name),
  spans.map((c) => c.environment),
  spans.map((c) => c.from),
  spans.map((c) => c.to),
];
