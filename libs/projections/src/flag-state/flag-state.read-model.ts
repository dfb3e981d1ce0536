import type { ReadPool } from '@flaglens/persistence';

export interface FlagName {
  name: string;
  project: string;
  archived: boolean;
}

/** Reads of the flags' current state (flag_state). */
export class FlagStateReadModel {
  constructor(private readonly db: ReadPool) {}

  /**
   * Flags whose name contains `q` (case-insensitive), names starting with it first, at most `limit`; deleted
   * flags and those of a `hidden` project left out (the console's search suggestions).
   */
  async flagNames(q: string, hidden: string[], limit: number): Promise<FlagName[]> {
    const r = await this.db.pool().query<FlagName>(
      `SELECT name, project, archived_at IS NOT NULL AS archived FROM flag_state
        WHERE NOT deleted AND project <> ALL($2::text[]) AND strpos(lower(name), lower($1)) > 0
        ORDER BY strpos(lower(name), lower($1)) = 1 DESC, name LIMIT $3`,
      [q, hidden, limit],
    );
    return r.rows;
  }
}
