import { Controller, DynamicModule, Get, Module } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TerminusModule } from '@nestjs/terminus';
import { ObservabilityModule } from '@flaglens/observability';
import type { SourceStatus } from '@flaglens/source';

/** What the health check needs to know about the running connector. */
export abstract class ConnectorHandle {
  abstract readonly ready: boolean;
  abstract readonly currentStatus: SourceStatus;
}

/** A read of the source older than this makes the connector not ready. */
const STALE_POLL_MS = 30_000;

/**
 * Liveness is the process. Readiness: the last read of the source succeeded, recently (a connector retrying
 * an unreachable Unleash is live but not ready; the body says why).
 */
@Controller('health')
export class ConnectorHealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly connector: ConnectorHandle,
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
      () => {
        const check = this.indicators.check('source');
        const s = this.connector.currentStatus;
        const data = {
          state: s.state,
          lastPollAt: s.lastPollAt,
          lagRows: s.lagRows,
          lagSeconds: s.lagSeconds,
          openGaps: s.openGaps,
        };
        const fresh = s.lastPollAt !== null && Date.now() - Date.parse(s.lastPollAt) < STALE_POLL_MS;
        return this.connector.ready && fresh
          ? check.up(data)
          : check.down({ ...data, message: s.message ?? 'no successful read of the source yet' });
      },
    ]);
  }
}

/** The connector's HTTP side while it follows: /health/live, /health/ready, /metrics (CONNECTOR_PORT). */
@Module({})
export class ConnectorHttpModule {
  static forRoot(opts: { logLevel: string; metricsToken?: string; handle: ConnectorHandle }): DynamicModule {
    return {
      module: ConnectorHttpModule,
      imports: [
        ObservabilityModule.forRoot({
          app: 'connector',
          logLevel: opts.logLevel,
          metricsToken: opts.metricsToken,
        }),
        TerminusModule.forRoot({ errorLogStyle: 'json', logger: false }),
      ],
      controllers: [ConnectorHealthController],
      providers: [{ provide: ConnectorHandle, useValue: opts.handle }],
    };
  }
}
