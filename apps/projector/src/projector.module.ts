import { DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { Database } from '@flaglens/persistence';
import { createKafka, kafkaSecurity } from '@flaglens/kafka';
import { allProjections } from '@flaglens/projections';
import { Logger } from '@nestjs/common';
import { BatchApplier } from '@flaglens/pipeline';
import { TerminusModule } from '@nestjs/terminus';
import { MetricsRegistry, ObservabilityModule, ProjectorMetrics } from '@flaglens/observability';
import { ConsumerProgressMonitor } from './consumer-progress.monitor';
import { LiveProjector } from './live-projector.service';
import { InsightsWeeksStore } from './insights-weeks.service';
import { AsOfCheckpoints } from './as-of-checkpoints.service';
import { TableMaintenance } from './table-maintenance.service';
import { PendingListFlusher } from './pending-lists.service';
import { HealthController } from './health.controller';
import { KAFKA } from './tokens';

/**
 * The projector's pool, ended when the app shuts down: after every worker that uses it (the consumer, the
 * progress monitor, the insights weeks, the table maintenance) stopped in `beforeApplicationShutdown`.
 */
export class ProjectorDatabase extends Database implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return this.end();
  }
}

@Module({})
export class ProjectorModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ProjectorModule,
      imports: [
        ObservabilityModule.forRoot({
          app: 'projector',
          logLevel: config.LOG_LEVEL,
          metricsToken: config.METRICS_TOKEN,
        }),
        // no log line per failed probe (a prober asks every few seconds): each check logs its own changes
        TerminusModule.forRoot({ logger: false }),
      ],
      controllers: [HealthController],
      providers: [{ provide: AppConfig, useValue: config }, ...PROVIDERS],
    };
  }
}

const PROVIDERS = [
  {
    provide: Database,
    inject: [AppConfig],
    useFactory: (config: AppConfig) =>
      new ProjectorDatabase({
        url: config.DATABASE_URL,
        // a connection per partition in flight, one to load positions, one for the progress monitor, one for
        // the health check (so a stuck batch cannot starve /health/ready), one for the table maintenance and one
        // for the pending-list flusher
        max: config.PROJECTOR_CONCURRENCY + 6,
        applicationName: 'flaglens-projector',
        prepared: true,
      }),
  },
  {
    provide: KAFKA,
    inject: [AppConfig],
    useFactory: (config: AppConfig) =>
      createKafka({
        brokers: config.KAFKA_BROKERS,
        clientId: `${config.KAFKA_CLIENT_ID}-projector`,
        security: kafkaSecurity(config),
      }),
  },
  {
    provide: ProjectorMetrics,
    inject: [MetricsRegistry],
    useFactory: (registry: MetricsRegistry) => new ProjectorMetrics(registry),
  },
  {
    provide: BatchApplier,
    inject: [Database, AppConfig, ProjectorMetrics],
    useFactory: (db: Database, config: AppConfig, metrics: ProjectorMetrics) => {
      const log = new Logger('Projections');
      return new BatchApplier(
        db,
        config.KAFKA_GROUP_ID,
        { kind: 'active' },
        allProjections(),
        (projection, id, reason) => {
          metrics.projectionSkips.inc({ projection });
          log.warn({ msg: `${projection}: event ${id} not applied: ${reason}`, projection, eventId: id });
        },
        (stage, seconds, cost) => {
          metrics.stageSeconds.inc({ stage }, seconds);
          metrics.stageCpuSeconds.inc({ stage }, cost.cpuSeconds);
          if (cost.dbCpuSeconds !== undefined) metrics.stageDbCpuSeconds.inc({ stage }, cost.dbCpuSeconds);
        },
      );
    },
  },
  ConsumerProgressMonitor,
  LiveProjector,
  InsightsWeeksStore,
  AsOfCheckpoints,
  TableMaintenance,
  PendingListFlusher,
];
