import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { DATABASE_UNREACHABLE, DatabaseProbe } from '@flaglens/observability';
import { ProjectionReads } from '../read-db/projection-reads.service';

const CHECK_TIMEOUT_MS = 2000;

/**
 * Liveness is the process; readiness: the read database answers, through the api's own pool (no second pool
 * for health), and has an active projection version. Both are open to anyone: a failing check says
 * DATABASE_UNREACHABLE, the cause is in the log.
 */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  private readonly probe: DatabaseProbe;

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
    const rows = await this.probe.query<{ version: number; schema_name: string }[]>(
      `SELECT version, schema_name FROM public.projection_versions WHERE status = 'active'`,
    );
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
