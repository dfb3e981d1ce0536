import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Unleash 7+'s transaction group of each event (`group_type`, `group_id`: `groupType`, `groupId` on the
 * topic), and `unleash_release`: the release line of the newest event applied whose message said which
 * release it was read from (the header `flaglens-unleash-release`). Stored bodies that already hold a group
 * (a producer sent one before the contract knew it) are read in Node, as EventCounts does.
 */
export class EventLogGroups1763800004400 implements MigrationInterface {
  name = 'EventLogGroups1763800004400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE event_log ADD COLUMN group_type text NULL, ADD COLUMN group_id text NULL`);
    const rows: { id: string; body: string }[] = await q.query(
      `SELECT id, body FROM event_log WHERE body LIKE '%"group%'`,
    );
    for (const r of rows) {
      let group: { groupType?: unknown; groupId?: unknown } = {};
      try {
        group = JSON.parse(r.body) as typeof group;
      } catch {
        continue; // a body that is not JSON holds no group
      }
      const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
      const [type, id] = [text(group.groupType), text(group.groupId)];
      if (type !== null || id !== null)
        await q.query(`UPDATE event_log SET group_type = $2, group_id = $3 WHERE id = $1`, [r.id, type, id]);
    }
    await q.query(`
      CREATE TABLE unleash_release (
        only_row    boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
        release     text        NOT NULL,
        event_id    bigint      NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE unleash_release`);
    await q.query(`ALTER TABLE event_log DROP COLUMN group_type, DROP COLUMN group_id`);
  }
}
