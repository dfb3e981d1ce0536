import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { AppConfig, Clock, clockFromConfig } from '@flaglens/config';
import { createDataSource } from '@flaglens/persistence';
import { EventLogReadModel } from '@flaglens/projections';
import { AdminAuthGuard } from './auth/admin-auth.guard';
import { AllErrorsFilter } from './common/all-errors.filter';
import { SchemaController } from './docs/schema.controller';
import { EventsController } from './events/events.controller';
import { GetFlagEventsHandler, GetLatestEventsHandler } from './events/get-flag-events.query';
import { HealthController } from './health.controller';
import { OverviewController } from './overview/overview.controller';
import { OVERVIEW_PROVIDERS } from './overview/overview.providers';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [CqrsModule.forRoot()],
      controllers: [EventsController, OverviewController, SchemaController, HealthController],
      providers: [{ provide: AppConfig, useValue: config }, ...PROVIDERS],
    };
  }
}

const PROVIDERS = [
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
    inject: [DataSource],
    useFactory: (db: DataSource) => new EventLogReadModel(db),
  },
  { provide: APP_FILTER, useClass: AllErrorsFilter },
  AdminAuthGuard,
  GetFlagEventsHandler,
  GetLatestEventsHandler,
  ...OVERVIEW_PROVIDERS,
];
