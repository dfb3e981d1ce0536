import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { AppConfig, Clock, clockFromConfig } from '@flaglens/config';
import { createDataSource } from '@flaglens/persistence';
import { EventLogReadModel, IdentityReadModel, PersonalAccessTokens } from '@flaglens/projections';
import { AdminAuthGuard } from './auth/admin-auth.guard';
import { AllErrorsFilter } from './common/all-errors.filter';
import { SchemaController } from './docs/schema.controller';
import { EventsController } from './events/events.controller';
import { GetFlagEventsHandler, GetLatestEventsHandler } from './events/get-flag-events.query';
import { HealthController } from './health.controller';
import { GetProfileHandler } from './profile/get-profile.query';
import { ProfileController } from './profile/profile.controller';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [CqrsModule.forRoot()],
      controllers: [EventsController, ProfileController, SchemaController, HealthController],
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
  {
    provide: IdentityReadModel,
    inject: [DataSource],
    useFactory: (db: DataSource) => new IdentityReadModel(db),
  },
  {
    provide: PersonalAccessTokens,
    inject: [DataSource],
    useFactory: (db: DataSource) => new PersonalAccessTokens(db),
  },
  { provide: APP_FILTER, useClass: AllErrorsFilter },
  AdminAuthGuard,
  // every /api/admin route is authenticated, including those added later
  { provide: APP_GUARD, useExisting: AdminAuthGuard },
  GetProfileHandler,
  GetFlagEventsHandler,
  GetLatestEventsHandler,
];
