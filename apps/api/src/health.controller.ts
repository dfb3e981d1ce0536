import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { withTimeout } from '@flaglens/observability';

const CHECK_TIMEOUT_MS = 2000;

/** Liveness is the process; readiness: Postgres (the read database) answers and has an active projection version. */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly typeorm: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly db: DataSource,
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      () => this.typeorm.pingCheck('postgres', { connection: this.db, timeout: CHECK_TIMEOUT_MS }),
      () => this.activeVersion(),
    ]);
  }

  private async activeVersion() {
    const check = this.indicators.check('projection');
    try {
      const rows = await withTimeout<{ version: number; schema_name: string }[]>(
        this.db.query(`SELECT version, schema_name FROM public.projection_versions WHERE status = 'active'`),
        CHECK_TIMEOUT_MS,
        'active version query',
      );
      return rows.length === 1
        ? check.up({ version: rows[0].version, schema: rows[0].schema_name })
        : check.down({ message: 'no active projection version (run `npm run migrate`)' });
    } catch (e) {
      return check.down({ message: (e as Error).message });
    }
  }
}
