import { Controller, Get } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { AppConfig } from '@flaglens/config';
import { withTimeout } from '@flaglens/observability';
import { ConsumerProgressMonitor } from './consumer-progress.monitor';
import { LiveProjector } from './live-projector.service';

const CHECK_TIMEOUT_MS = 2000;

/**
 * Liveness is the process. Readiness: Postgres answers, the consumer is in its group, and every partition
 * it owns is progressing: behind but moving is ready (the lag is reported); behind with a stored position
 * that has not moved for PROJECTOR_STALL_SECONDS is stuck, not ready.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly typeorm: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly db: DataSource,
    private readonly projector: LiveProjector,
    private readonly monitor: ConsumerProgressMonitor,
    private readonly config: AppConfig,
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
      () => withTimeout(Promise.resolve(this.consumerJoined()), CHECK_TIMEOUT_MS, 'consumer check'),
      () => withTimeout(Promise.resolve(this.progressing()), CHECK_TIMEOUT_MS, 'progress check'),
    ]);
  }

  private consumerJoined() {
    const check = this.indicators.check('consumer');
    const { isJoined, assigned } = this.projector.consumer;
    return isJoined
      ? check.up({ group: this.config.KAFKA_GROUP_ID, partitions: assigned })
      : check.down({ group: this.config.KAFKA_GROUP_ID, message: 'not joined to the consumer group' });
  }

  private progressing() {
    const check = this.indicators.check('progress');
    const now = Date.now();
    const assigned = this.projector.consumer.assigned;
    const partitions = assigned.map((p) => this.monitor.progress.report(p, now));
    const lag = partitions.reduce((n, p) => n + (p.lag ?? 0), 0);
    const stuck = this.monitor.progress.stalled(assigned, this.config.PROJECTOR_STALL_SECONDS, now);
    const data = {
      lag,
      stallSeconds: this.config.PROJECTOR_STALL_SECONDS,
      partitions: partitions.map((p) => ({
        partition: p.partition,
        lag: p.lag,
        stillSeconds: p.stillSeconds,
      })),
    };
    return stuck.length === 0
      ? check.up(data)
      : check.down({
          ...data,
          message: `stuck: partition(s) ${stuck.map((s) => s.partition).join(', ')} behind and not moving`,
        });
  }
}
