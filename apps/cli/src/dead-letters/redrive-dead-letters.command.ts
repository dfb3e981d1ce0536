import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Logger } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { BatchApplier, type RedriveResult } from '@flaglens/pipeline';
import { allProjections } from '@flaglens/projections';
import { CliDatabase } from '../cli-database';
import { DeadLettersReadModel } from './dead-letters.read-model';
import { planRedrive } from './redrive-plan';

export interface RedriveSummary {
  examined: number;
  stored: number;
  duplicate: number;
  stillInvalid: number;
  alreadyRedriven: number;
  dbRejected: number;
}

/** Re-drive the dead letters not re-driven yet (optionally one reason code, or one id). */
export class RedriveDeadLetters extends Command<RedriveSummary> {
  constructor(
    readonly filter: { reason?: string; id?: number },
    readonly chunk = 500,
  ) {
    super();
  }
}

/**
 * Re-validates each pending dead letter's raw value with the current configuration; the valid ones go
 * through the projector's path (BatchApplier.applyRedrive: event log with id dedupe + every projection, on
 * the active version, one transaction per chunk, marked re-driven in that transaction), without moving
 * any offset. Still-invalid ones stay pending with the new reason in `redrive_outcome`.
 */
@CommandHandler(RedriveDeadLetters)
export class RedriveDeadLettersHandler implements ICommandHandler<RedriveDeadLetters, RedriveSummary> {
  private readonly log = new Logger('Redrive');

  constructor(
    private readonly database: CliDatabase,
    private readonly config: AppConfig,
  ) {}

  async execute({ filter, chunk }: RedriveDeadLetters): Promise<RedriveSummary> {
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
    };
    let afterId: number | undefined;
    for (;;) {
      const rows = await reads.list({ ...filter, pending: true, afterId, limit: chunk }, true);
      if (rows.length === 0) break;
      afterId = rows[rows.length - 1].id;
      summary.examined += rows.length;
      const plan = planRedrive(rows, {
        allowUnknownTypes: this.config.ACCEPT_UNKNOWN_EVENT_TYPES,
        maxBytes: this.config.MAX_EVENT_BYTES,
      });
      const results: RedriveResult[] = await applier.applyRedrive(plan.items);
      for (const r of results) {
        if (r.outcome === 'stored') summary.stored++;
        else if (r.outcome === 'duplicate') summary.duplicate++;
        else if (r.outcome === 'already-redriven') summary.alreadyRedriven++;
        else summary.dbRejected++;
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
