import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { Database } from '@flaglens/persistence';
import { AppConfig } from '@flaglens/config';
import { DATABASE_UNREACHABLE, DatabaseProbe, withTimeout } from '@flaglens/observability';
import { ConsumerProgressMonitor } from './consumer-progress.monitor';
import { LiveProjector } from './live-projector.service';

const CHECK_TIMEOUT_MS = 2000;

/**
 * Liveness: the process answers and its Kafka consumer has not stopped for good (kafkajs gave up on it:
 * only a restart helps; waiting for the broker or the topic is not that). Readiness: Postgres answers, the consumer is in its group, and every partition
 * it owns is progressing: behind but moving is ready (the lag is reported); behind with a stored position
 * that has not moved for PROJECTOR_STALL_SECONDS is stuck, not ready. A Postgres failure is answered as
 * DATABASE_UNREACHABLE (anyone may call these endpoints); the cause is in the log.
 */
@Controller('health')
export class HealthController {
  private readonly probe: DatabaseProbe;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    db: Database,
    private readonly projector: LiveProjector,
    private readonly monitor: ConsumerProgressMonitor,
    private readonly config: AppConfig,
  ) {
    this.probe = new DatabaseProbe(db, CHECK_TIMEOUT_MS);
  }

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([() => this.consumerAlive()]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      () => this.postgres(),
      () => withTimeout(Promise.resolve(this.consumerJoined()), CHECK_TIMEOUT_MS, 'consumer check'),
      () => withTimeout(Promise.resolve(this.progressing()), CHECK_TIMEOUT_MS, 'progress check'),
    ]);
  }

  private async postgres() {
    const check = this.indicators.check('postgres');
    return (await this.probe.query('SELECT 1')) === null
      ? check.down({ message: DATABASE_UNREACHABLE })
      : check.up();
  }

  private consumerAlive() {
    const check = this.indicators.check('consumer');
    const failure = this.projector.failure;
    return failure === null ? check.up() : check.down({ message: failure });
  }

  private consumerJoined() {
    const check = this.indicators.check('consumer');
    const { isJoined, assigned } = this.projector.consumer;
    const group = this.config.KAFKA_GROUP_ID;
    if (isJoined) return check.up({ group, partitions: assigned });
    const message = this.projector.failure ?? this.projector.waitingFor ?? 'not joined to the consumer group';
    return check.down({ group, message });
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
