import {
  Controller,
  Get,
  type OnModuleDestroy,
  type OnModuleInit,
  Res,
  ServiceUnavailableException,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { DATABASE_UNREACHABLE, DatabaseProbe } from '@flaglens/observability';
import { ProjectionReads } from '../read-db/projection-reads.service';

const CHECK_TIMEOUT_MS = 2000;
/** The database is checked this often in the background; a probe answers from the newest check. */
export const READY_CHECK_EVERY_MS = 1000;

type VersionRows = { version: number; schema_name: string }[];

/**
 * Liveness is the process; readiness: the read database answers, through the api's own pool (no second pool
 * for health), and has an active projection version. Both are open to anyone: a failing check says
 * DATABASE_UNREACHABLE, the cause is in the log.
 *
 * The database is checked in the background every READY_CHECK_EVERY_MS (one at a time, each timing out after
 * CHECK_TIMEOUT_MS) and `/health/ready` answers from the newest check, so a probe costs no round trip and
 * answers at once under any read load (a probe that times out restarts or unroutes a busy api). Before the
 * first check a probe waits for it.
 */
@ApiExcludeController()
@Controller('health')
export class HealthController implements OnModuleInit, OnModuleDestroy {
  private readonly probe: DatabaseProbe;
  /** the newest check's rows (null: the database did not answer) */
  private last?: VersionRows | null;
  private first?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    reads: ProjectionReads,
  ) {
    this.probe = new DatabaseProbe(
      { query: async (sql: string) => (await reads.pool().query(sql)).rows },
      CHECK_TIMEOUT_MS,
    );
  }

  onModuleInit(): void {
    this.first = this.check();
  }

  onModuleDestroy(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  /** One check, then the next one READY_CHECK_EVERY_MS after it ends. */
  private async check(): Promise<void> {
    this.last = await this.probe.query<VersionRows>(
      `SELECT version, schema_name FROM public.projection_versions WHERE status = 'active'`,
    );
    if (!this.closed) this.timer = setTimeout(() => void this.check(), READY_CHECK_EVERY_MS).unref();
  }

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    try {
      return await this.health.check([() => this.postgresAndVersion()]);
    } catch (e) {
      // terminus's 503 with the checks' report (the api's error envelope would turn it into a bare 500)
      if (!(e instanceof ServiceUnavailableException)) throw e;
      void reply.status(503);
      return e.getResponse();
    }
  }

  /** One statement answers both: Postgres is there, and which projection version is active. */
  private async postgresAndVersion() {
    const postgres = this.indicators.check('postgres');
    const projection = this.indicators.check('projection');
    if (this.last === undefined) await this.first;
    const rows = this.last ?? null;
    if (rows === null)
      return {
        ...postgres.down({ message: DATABASE_UNREACHABLE }),
        ...projection.down({ message: DATABASE_UNREACHABLE }),
      };
    return {
      ...postgres.up(),
      ...(rows.length === 1
        ? projection.up({ version: rows[0].version, schema: rows[0].schema_name })
        : projection.down({ message: 'no active projection version (run `npm run migrate`)' })),
    };
  }
}
