import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig, Clock, clockFromConfig } from '@flaglens/config';
import { ApiCacheMetrics, MetricsRegistry } from '@flaglens/observability';
import { ChangeListener } from './change-listener.service';
import { ProjectionReads } from './projection-reads.service';
import { AsOfReads } from './as-of-reads.service';

/**
 * The api's database: the pool bound to the active projection version (following a rebuild's switch), the
 * connections of the reads as of an instant, and the projector's change feed, from which every cache drops what a batch changed. Global: every feature reads
 * through it.
 */
@Global()
@Module({})
export class ReadDbModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ReadDbModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useValue: clockFromConfig(config.FLAGLENS_CLOCK) },
        {
          provide: ApiCacheMetrics,
          inject: [MetricsRegistry],
          useFactory: (metrics: MetricsRegistry) => new ApiCacheMetrics(metrics),
        },
        ChangeListener,
        ProjectionReads,
        AsOfReads,
      ],
      exports: [AppConfig, Clock, ApiCacheMetrics, ChangeListener, ProjectionReads, AsOfReads],
    };
  }
}
