import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Logger } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import type { RowQueryable } from '@flaglens/persistence';
import { applyRedrive, BatchApplier, type RedriveItem, type RedriveResult } from '@flaglens/pipeline';
import { allProjections } from '@flaglens/projections';
import { DeadLettersReadModel } from '@flaglens/operations';
import { CliDatabase } from '../cli-database';
import { planRedrive } from './redrive-plan';

export interface RedriveSummary {
  examined: number;
  stored: number;
  duplicate: number;
  stillInvalid: number;
  alreadyRedriven: number;
  dbRejected: number;
  /**
   * Valid now, but later events of their key are already applied: applying them now would not give what
   * the log means (a re-driven `feature-created` after its `feature-archived` would revive the flag). They
   * are accepted for the next rebuild, which replays them in their place.
   */
  needRebuild: number;
}

/** Re-drive the dead letters not re-driven yet (optionally one reason code, or one id). */
export class RedriveDeadLetters extends Command<RedriveSummary> {
  constructor(
    readonly filter: { reason?: string; id?: number },
    /** at most this many dead letters, and this many bytes of their values, are held at once */
    readonly chunk = 500,
    readonly chunkBytes = 32 * 1024 * 1024,
  ) {
    super();
  }
}

/**
 * Re-validates each pending dead letter's raw value with the current configuration. A valid one whose key
 * has no later event applied yet goes through the projector's path now (applyRedrive: event log
 * with id dedupe + every projection, on the active version, one transaction per chunk, marked re-driven in
 * that transaction), without moving any offset: the result is what a rebuild would give, since its key's
 * events stay in log order and the projections do not depend on the order across keys. A valid one whose key
 * has later events is marked `rebuild`: accepted, and applied in its place by a rebuild (which replays every
 * re-driven position as accepted). Still-invalid ones stay pending with the new reason in `redrive_outcome`.
 * Dead letters are read in chunks bounded in count and in bytes.
 */
@CommandHandler(RedriveDeadLetters)
export class RedriveDeadLettersHandler implements ICommandHandler<RedriveDeadLetters, RedriveSummary> {
  private readonly log = new Logger('Redrive');

  constructor(
    private readonly database: CliDatabase,
    private readonly config: AppConfig,
  ) {}

  async execute({ filter, chunk, chunkBytes }: RedriveDeadLetters): Promise<RedriveSummary> {
    const db = await this.database.get();
    const reads = new DeadLettersReadModel(db);
    const applier = new BatchApplier(
      db,
      this.config.KAFKA_GROUP_ID,
      { kind: 'active' },
      allProjections(),
      (projection, id, reason) => this.log.warn(`${projection}: event ${id} not applied: ${reason}`),
    );
    const summary: RedriveSummary = {
      examined: 0,
      stored: 0,
      duplicate: 0,
      stillInvalid: 0,
      alreadyRedriven: 0,
      dbRejected: 0,
      needRebuild: 0,
    };
    let afterId: number | undefined;
    for (;;) {
      const sizes = await reads.pendingSizes({ ...filter, afterId, limit: chunk });
      if (sizes.length === 0) break;
      // as many as fit in chunkBytes (at least one, however large)
      let bytes = 0;
      let n = 0;
      while (n < sizes.length && (n === 0 || bytes + sizes[n].bytes <= chunkBytes)) bytes += sizes[n++].bytes;
      const ids = sizes.slice(0, n).map((x) => x.id);
      afterId = ids[ids.length - 1];
      const rows = await reads.withValues(ids);
      summary.examined += rows.length;
      const plan = planRedrive(rows, {
        allowUnknownTypes: this.config.ACCEPT_UNKNOWN_EVENT_TYPES,
        maxBytes: this.config.MAX_EVENT_BYTES,
        format: this.config.EVENT_FORMAT,
      });
      const late = await laterEventsOfKey(db, plan.items);
      const results: RedriveResult[] = await applyRedrive(
        applier,
        plan.items.filter((i) => !late.has(i.deadLetterId)),
      );
      for (const r of results) {
        if (r.outcome === 'stored') summary.stored++;
        else if (r.outcome === 'duplicate') summary.duplicate++;
        else if (r.outcome === 'already-redriven') summary.alreadyRedriven++;
        else summary.dbRejected++;
      }
      if (late.size > 0) {
        const marked = (await db.query(
          `WITH m AS (UPDATE public.dead_letters SET redriven_at = now(), redrive_outcome = 'rebuild'
                       WHERE id = ANY($1::bigint[]) AND redriven_at IS NULL RETURNING id)
           SELECT count(*)::int AS n FROM m`,
          [[...late]],
        )) as { n: number }[];
        summary.needRebuild += marked[0].n;
      }
      if (plan.stillInvalid.length > 0) {
        summary.stillInvalid += plan.stillInvalid.length;
        await db.query(
          `UPDATE public.dead_letters d SET redrive_outcome = u.outcome
             FROM unnest($1::bigint[], $2::text[]) AS u(id, outcome)
            WHERE d.id = u.id AND d.redriven_at IS NULL`,
          [
            plan.stillInvalid.map((s) => s.deadLetterId),
            plan.stillInvalid.map((s) =>
              `still invalid (${new Date().toISOString()}): ${s.code}: ${s.reason}`.slice(0, 1000),
            ),
          ],
        );
      }
      if (filter.id !== undefined) break;
    }
    return summary;
  }
}

/**
 * The dead letters (of `items`) whose key already has a later event in the active version's event log: the
 * same key, topic and partition, at a higher offset.
 */
async function laterEventsOfKey(db: RowQueryable, items: RedriveItem[]): Promise<Set<number>> {
  if (items.length === 0) return new Set();
  const rows = (await db.query(
    `SELECT u.dl FROM unnest($1::bigint[], $2::text[], $3::int[], $4::bigint[], $5::text[], $6::text[])
            AS u(dl, topic, part, off, flag, project)
      WHERE EXISTS (
        SELECT 1 FROM event_log e
         WHERE e.source_topic = u.topic AND e.source_partition = u.part AND e.source_offset > u.off
           AND CASE WHEN u.flag IS NOT NULL THEN e.feature_name = u.flag
                    WHEN u.project IS NOT NULL THEN e.feature_name IS NULL AND e.project = u.project
                    ELSE e.feature_name IS NULL AND e.project IS NULL END)`,
    [
      items.map((i) => i.deadLetterId),
      items.map((i) => i.event.topic ?? ''),
      items.map((i) => i.event.partition ?? -1),
      items.map((i) => i.event.offset ?? -1),
      items.map((i) => i.event.event.featureName),
      items.map((i) => i.event.event.project),
    ],
  )) as { dl: string }[];
  return new Set(rows.map((r) => Number(r.dl)));
}
