import type { PoolClient } from 'pg';
import type { FlagEvent } from '@flaglens/contract';
import { EVERY, type Projection, type ProjectionContext, type SourcedEvent } from '../projection';
import { loadRows, writeRows, type KeyedTable } from '../keyed-rows';
import {
  latestEventPerProject,
  PROJECT_SETTING_TYPES,
  projectsWithEnable,
  reduceProjects,
  type ProjectRow,
} from './projects.logic';

/** A project's settings; `last_event_at` (the latest time of any of its events) is kept apart, as a max. */
const PROJECTS_TABLE: KeyedTable<ProjectRow> = {
  table: 'projects',
  columns: [
    { field: 'id', column: 'id', type: 'text' },
    { field: 'exists', column: 'exists', type: 'boolean' },
    { field: 'name', column: 'name', type: 'text' },
    { field: 'description', column: 'description', type: 'text' },
    { field: 'mode', column: 'mode', type: 'text' },
    { field: 'defaultStickiness', column: 'default_stickiness', type: 'text' },
    { field: 'featureLimit', column: 'feature_limit', type: 'int' },
    { field: 'namingPattern', column: 'naming_pattern', type: 'text' },
    { field: 'namingExample', column: 'naming_example', type: 'text' },
    { field: 'namingDescription', column: 'naming_description', type: 'text' },
    // a seeded project has no creation event: its time stays what the seed made it
    {
      field: 'createdAt',
      column: 'created_at',
      type: 'timestamptz',
      onConflict: 'COALESCE(EXCLUDED.created_at, t.created_at)',
    },
    { field: 'archivedAt', column: 'archived_at', type: 'timestamptz' },
    { field: 'linkEnabledEnvs', column: 'link_enabled_envs', type: 'boolean' },
    { field: 'linkTemplates', column: 'link_templates', type: 'json' },
  ],
};

/**
 * Projects: every project an event names gets a row (a placeholder until its `project-created`), its latest event
 * time (order-independent: a max) and whether a flag was ever enabled in it (an or); the settings come from the
 * project's own events.
 */
export class ProjectsProjection implements Projection {
  readonly name = 'projects';
  readonly writes = ['projects'];
  /** the log's first event: the seeded project's creation time */
  readonly reads = ['event_log'];
  readonly scope = 'projects';

  handles(): boolean {
    return true;
  }

  /** Every event moves its project's latest event time; only the settings' own events change the rest. */
  readonly parts = {
    settings: (e: FlagEvent): readonly string[] =>
      e.project && PROJECT_SETTING_TYPES.has(e.type) ? [e.project] : [],
  };

  async apply(client: PoolClient, sourced: SourcedEvent[], context: ProjectionContext): Promise<void> {
    const events = sourced.map((s) => s.event);
    // the seeded `default` project was created at the instance's first event: a batch holding it changes it
    await touchIfEarliest(client, events, context);
    const latest = latestEventPerProject(events);
    if (latest.size === 0) return;
    // 1. every project named: a row (placeholder if new) and the latest event time (max: order-independent).
    //    Sorted, so concurrent partitions lock rows in the same order.
    const ids = [...latest.keys()].sort();
    const enabled = projectsWithEnable(events);
    await client.query(
      `INSERT INTO projects (id, last_event_at, flag_enabled)
       SELECT id, at, en FROM unnest($1::text[], $2::timestamptz[], $3::boolean[]) AS t(id, at, en) ORDER BY id
       ON CONFLICT (id) DO UPDATE SET last_event_at = GREATEST(projects.last_event_at, EXCLUDED.last_event_at),
                                      flag_enabled = projects.flag_enabled OR EXCLUDED.flag_enabled`,
      [ids, ids.map((id) => latest.get(id)), ids.map((id) => enabled.has(id))],
    );
    // 2. settings from the project's own events (rows already locked by step 1)
    const relevant = events.filter((e) => PROJECT_SETTING_TYPES.has(e.type));
    if (relevant.length === 0) return;
    const loaded = await loadRows(client, PROJECTS_TABLE, ids);
    const current = new Map([...loaded].map(([id, rows]) => [id, rows[0]]));
    const { rows, skipped } = reduceProjects(current, relevant);
    for (const s of skipped) context.skipped(s.eventId, s.reason);
    await writeRows(client, PROJECTS_TABLE, rows);
  }
}

async function touchIfEarliest(
  client: PoolClient,
  events: readonly { createdAt: string }[],
  context: ProjectionContext,
): Promise<void> {
  let earliest = events[0]?.createdAt;
  for (const e of events) if (e.createdAt < earliest) earliest = e.createdAt;
  if (earliest === undefined) return;
  const r = await client.query<{ first: boolean }>(
    'SELECT $1::timestamptz <= (SELECT min(created_at) FROM event_log) AS first',
    [earliest],
  );
  if (r.rows[0]?.first !== false) context.touch('projects', [EVERY]);
}
