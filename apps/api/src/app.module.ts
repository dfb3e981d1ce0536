import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { TerminusModule } from '@nestjs/terminus';
import { HttpMetrics, MetricsRegistry, ObservabilityModule } from '@flaglens/observability';
import { DataSource } from 'typeorm';
import { AppConfig, Clock, clockFromConfig } from '@flaglens/config';
import { createDataSource } from '@flaglens/persistence';
import { ProjectionReads } from './cache/projection-reads.service';
import { ChangeListener } from './cache/change-listener.service';
import { FlagEventsCache } from './cache/flag-events.cache';
import { IdentityCache } from './cache/identity.cache';
import { OverviewCache } from './cache/overview.cache';
import { EventLogReadModel, IdentityReadModel, PersonalAccessTokens } from '@flaglens/projections';
import { rowsVia } from '@flaglens/persistence';
import { AdminAuthGuard } from './auth/admin-auth.guard';
import { AllErrorsFilter } from './common/all-errors.filter';
import { SchemaController } from './docs/schema.controller';
import { EventsController } from './events/events.controller';
import { GetFlagEventsHandler, GetLatestEventsHandler } from './events/get-flag-events.query';
import { HealthController } from './health.controller';
import { GetProfileHandler } from './profile/get-profile.query';
import { ProfileController } from './profile/profile.controller';
import { OverviewController } from './overview/overview.controller';
import { OVERVIEW_PROVIDERS } from './overview/overview.providers';
import { InsightsController } from './insights/insights.controller';
import { INSIGHTS_PROVIDERS } from './insights/insights.providers';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CqrsModule.forRoot(),
        ObservabilityModule.forRoot({
          app: 'api',
          logLevel: config.LOG_LEVEL,
          metricsToken: config.METRICS_TOKEN,
        }),
        TerminusModule.forRoot({ errorLogStyle: 'json' }),
      ],
      controllers: [
        EventsController,
        ProfileController,
        OverviewController,
        InsightsController,
        SchemaController,
        HealthController,
      ],
      providers: [{ provide: AppConfig, useValue: config }, ...PROVIDERS],
    };
  }
}

const PROVIDERS = [
  {
    provide: HttpMetrics,
    inject: [MetricsRegistry],
    useFactory: (registry: MetricsRegistry) => new HttpMetrics(registry),
  },
  { provide: Clock, inject: [AppConfig], useFactory: (c: AppConfig) => clockFromConfig(c.FLAGLENS_CLOCK) },
  {
    provide: DataSource,
    inject: [AppConfig],
    // the api only reads: a replica when DATABASE_READ_URL is set
    useFactory: (c: AppConfig) =>
      createDataSource({
        url: c.DATABASE_READ_URL ?? c.DATABASE_URL,
        poolSize: c.DB_POOL_SIZE,
        applicationName: 'flaglens-api',
      }).initialize(),
  },
  {
    provide: EventLogReadModel,
    inject: [ProjectionReads],
    useFactory: (reads: ProjectionReads) => new EventLogReadModel(reads),
  },
  ProjectionReads,
  ChangeListener,
  FlagEventsCache,
  IdentityCache,
  OverviewCache,
  {
    provide: IdentityReadModel,
    inject: [ProjectionReads],
    useFactory: (reads: ProjectionReads) => new IdentityReadModel(rowsVia(reads)),
  },
  {
    // tokens (public) are checked against users of the active projection version
    provide: PersonalAccessTokens,
    inject: [ProjectionReads],
    useFactory: (reads: ProjectionReads) => new PersonalAccessTokens(rowsVia(reads)),
  },
  { provide: APP_FILTER, useClass: AllErrorsFilter },
  AdminAuthGuard,
  // every /api/admin route is authenticated, including those added later
  { provide: APP_GUARD, useExisting: AdminAuthGuard },
  GetProfileHandler,
  GetFlagEventsHandler,
  GetLatestEventsHandler,
  ...OVERVIEW_PROVIDERS,
  ...INSIGHTS_PROVIDERS,
];
