import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which projects an event names (event-log.projection.ts `namedProjects`), for readers who may not see some
 * of them: `event_log.other_projects`, the projects a flag's move names besides the event's own, and
 * `event_counts`, how many events the log holds per set of named projects, so the instance event list's total
 * for a caller is a sum over a few rows instead of a count over the whole log. Existing moves are read in
 * Node (which walks any depth) rather than by Postgres's JSON parser.
 */
export class EventCounts1763800003400 implements MigrationInterface {
  name = 'EventCounts1763800003400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE event_log ADD COLUMN other_projects text[] NULL`);
    await q.query(`CREATE TABLE event_counts (names text[] PRIMARY KEY, n bigint NOT NULL)`);
    await q.query(`
      INSERT INTO event_counts (names, n)
      SELECT CASE WHEN project IS NULL OR project = '' THEN '{}'::text[] ELSE ARRAY[project] END, count(*)
        FROM event_log WHERE type <> 'feature-project-change' GROUP BY 1`);
    const moves: { id: string; project: string | null; body: string }[] = await q.query(
      `SELECT id, project, body FROM event_log WHERE type = 'feature-project-change'`,
    );
    const counts = new Map<string, number>();
    for (const m of moves) {
      const names = new Set<string>();
      if (m.project) names.add(m.project);
      const others = new Set<string>();
      try {
        const data = (JSON.parse(m.body) as { data?: Record<string, unknown> }).data ?? {};
        for (const v of [data.oldProject, data.newProject])
          if (typeof v === 'string' && v !== '') {
            names.add(v);
            if (v !== m.project) others.add(v);
          }
      } catch {
        // a body that is not JSON names no other project
      }
      if (others.size > 0)
        await q.query(`UPDATE event_log SET other_projects = $2 WHERE id = $1`, [m.id, [...others].sort()]);
      const k = JSON.stringify([...names].sort());
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    for (const [k, n] of counts)
      await q.query(
        `INSERT INTO event_counts AS c (names, n) VALUES (ARRAY(SELECT json_array_elements_text($1::json)), $2)
         ON CONFLICT (names) DO UPDATE SET n = c.n + EXCLUDED.n`,
        [k, n],
      );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE event_counts`);
    await q.query(`ALTER TABLE event_log DROP COLUMN other_projects`);
  }
}
