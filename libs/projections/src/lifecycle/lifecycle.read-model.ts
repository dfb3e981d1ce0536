import type { RowQueryable } from '@flaglens/persistence';
import { isoText } from '../keyed-rows';
import {
  currentStage,
  lifecycleSummary,
  stagesOf,
  type EnableSpan,
  type LifecycleFlagRow,
  type LifecycleSummary,
  type Sighting,
  type StageEntry,
  type SummaryFlag,
} from './lifecycle.logic';
import type { Reads } from '../change-feed';

/**
 * What a lifecycle summary reads (FLAGS_SQL, ENVIRONMENTS_SQL), by no one key (a summary spans projects): a
 * batch writing any of these drops every summary kept (change-feed.ts).
 */
export const LIFECYCLE_READS: Reads = {
  tables: ['flag_state', 'lifecycle_flags', 'lifecycle_enable_spans', 'lifecycle_sightings', 'environments'],
};

/**
 * Of the closed spans of flag `f` in the environment of sighting `s` (lifecycle_enable_spans), the one the
 * sighting meets first from the later of its first report and the flag's start `l.started_at` (stagesOf's
 * rule: the span's later start within the sighting, before the span ends): as JSON, or null. The stored spans
 * of a flag and environment never overlap (`mergeSpans`), so it is the last one starting at or before that
 * instant if it reaches past it, else the first one starting after it, up to the sighting's last report: two
 * probes of the key, however often the flag was toggled, and stagesOf is given one closed span, not the history.
 */
const spanJson = `json_build_object('environment', sp.environment, 'from', ${isoText('sp.from_at')}, 'to', ${isoText('sp.to_at')})`;
const LIFECYCLE_LIVE_SPAN_SQL = `COALESCE(
            (SELECT CASE WHEN sp.to_at > GREATEST(s.first_at, l.started_at)
                          AND GREATEST(s.first_at, l.started_at) <= s.last_at THEN ${spanJson} END
               FROM lifecycle_enable_spans sp
              WHERE sp.feature_name = f.name AND sp.environment = s.environment
                AND sp.from_at <= GREATEST(s.first_at, l.started_at)
              ORDER BY sp.from_at DESC LIMIT 1),
            (SELECT ${spanJson}
               FROM lifecycle_enable_spans sp
              WHERE sp.feature_name = f.name AND sp.environment = s.environment
                AND sp.from_at > GREATEST(s.first_at, l.started_at) AND sp.from_at <= s.last_at
              ORDER BY sp.from_at LIMIT 1))`;

/**
 * Every flag that exists (archived ones too) with its type, its lifecycle row and its sightings, in the
 * projects `$1` (null: every project) and not in the hidden projects `$2`; `$3` one flag's name, or null.
 */
const FLAGS_SQL = `
SELECT f.name, f.type, f.archived_at IS NOT NULL AS archived, ${isoText('f.archived_at')} AS "flagArchivedAt",
       ${isoText('l.started_at')} AS "startedAt", ${isoText('l.completed_at')} AS "completedAt",
       l.completed_status AS "completedStatus", ${isoText('l.archived_at')} AS "archivedAt",
       l.enables::text AS enables,
       (SELECT coalesce(json_agg(json_build_array(s.environment, ${isoText('s.first_at')}, ${isoText('s.last_at')},
                                                  ${LIFECYCLE_LIVE_SPAN_SQL})
                                 ORDER BY s.environment), '[]')::text
          FROM lifecycle_sightings s WHERE s.feature_name = f.name) AS sightings
  FROM flag_state f JOIN lifecycle_flags l ON l.name = f.name AND NOT l.deleted
 WHERE NOT f.deleted AND ($1::text[] IS NULL OR f.project = ANY($1::text[]))
   AND NOT (f.project = ANY($2::text[])) AND ($3::text IS NULL OR f.name = $3::text)
 ORDER BY f.name`;

const ENVIRONMENTS_SQL = `SELECT name, type FROM environments WHERE NOT deleted`;

interface FlagRowOut {
  name: string;
  type: string;
  archived: boolean;
  flagArchivedAt: string | null;
  startedAt: string;
  completedAt: string | null;
  completedStatus: string | null;
  archivedAt: string | null;
  enables: string;
  sightings: string;
}

/** The flags' lifecycle stages, derived when read (lifecycle.logic.ts `stagesOf`), and their summary. */
export class LifecycleReadModel {
  constructor(private readonly db: RowQueryable) {}

  private async flags(
    projects: readonly string[] | null,
    hidden: readonly string[],
    name: string | null,
  ): Promise<(SummaryFlag & { name: string; archivedAt: string | null })[]> {
    const [rows, envs] = await Promise.all([
      this.db.query<FlagRowOut>(FLAGS_SQL, [projects === null ? null : [...projects], [...hidden], name]),
      this.db.query<{ name: string; type: string }>(ENVIRONMENTS_SQL),
    ]);
    const types = new Map(envs.map((e) => [e.name, e.type]));
    return rows.map((r) => {
      const seen = JSON.parse(r.sightings) as [string, string, string, EnableSpan | null][];
      const row: LifecycleFlagRow = {
        name: r.name,
        startedAt: r.startedAt,
        completedAt: r.completedAt,
        completedStatus: r.completedStatus,
        archivedAt: r.archivedAt,
        deleted: false,
        // the open spans, and the closed one each sighting meets first (LIFECYCLE_LIVE_SPAN_SQL)
        enables: [
          ...(JSON.parse(r.enables) as EnableSpan[]),
          ...seen.flatMap(([, , , span]) => (span ? [span] : [])),
        ],
      };
      const sightings: Sighting[] = seen.map(([environment, first, last]) => ({
        featureName: r.name,
        environment,
        first,
        last,
      }));
      return {
        name: r.name,
        type: r.type,
        archived: r.archived,
        archivedAt: r.flagArchivedAt,
        stages: stagesOf(row, sightings, types),
      };
    });
  }

  /**
   * `GET /api/admin/insights/lifecycle`: the summary as of `now` of the flags in `projects` (null: every
   * project) the caller may see, and until when it holds (epoch ms; null: until the flags change).
   */
  async summary(
    now: Date,
    projects: readonly string[] | null,
    hidden: readonly string[] = [],
  ): Promise<{ body: LifecycleSummary; validUntil: number | null }> {
    return lifecycleSummary(await this.flags(projects, hidden, null), now);
  }

  /**
   * How many existing flags (archived ones too) are in each stage now, by the stage entered last: Unleash's
   * `GET /api/admin/lifecycle/count` (its keys, `pre-live` as `preLive`); the conformance run compares them.
   */
  async stageCounts(): Promise<Record<'initial' | 'preLive' | 'live' | 'completed' | 'archived', number>> {
    const out = { initial: 0, preLive: 0, live: 0, completed: 0, archived: 0 };
    for (const f of await this.flags(null, [], null)) {
      const stage = currentStage(f.stages).stage;
      out[stage === 'pre-live' ? 'preLive' : stage]++;
    }
    return out;
  }

  /**
   * The flags of `project` (its current flags, archived ones too) with when they were archived and their stages:
   * what the project status summarises (project-status.logic.ts `projectLifecycleSummary`).
   */
  async projectFlags(project: string): Promise<{ archivedAt: string | null; stages: StageEntry[] }[]> {
    return (await this.flags([project], [], null)).map((f) => ({
      archivedAt: f.archivedAt,
      stages: [...f.stages],
    }));
  }

  /** One existing flag's stages, oldest first (as Unleash's `GET …/features/{feature}/lifecycle`); none: null. */
  async stages(name: string): Promise<StageEntry[] | null> {
    const [flag] = await this.flags(null, [], name);
    return flag ? [...flag.stages] : null;
  }
}
