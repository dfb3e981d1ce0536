import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { AppConfig } from '@flaglens/config';
import { HttpMetrics, MetricsRegistry, ObservabilityModule } from '@flaglens/observability';
import { AdminAuthGuard } from './auth/admin-auth.guard';
import { AuthModule } from './auth/auth.module';
import { AllErrorsFilter } from './common/all-errors.filter';
import { ConsoleModule } from './console/console.module';
import { DiffModule } from './diff/diff.module';
import { DocsModule } from './docs/docs.module';
import { EventsModule } from './events/events.module';
import { HealthModule } from './health/health.module';
import { InsightsModule } from './insights/insights.module';
import { OverviewModule } from './overview/overview.module';
import { ProfileModule } from './profile/profile.module';
import { PersonalDashboardModule } from './personal-dashboard/personal-dashboard.module';
import { ProjectStatusModule } from './project-status/project-status.module';
import { ReadDbModule } from './read-db/read-db.module';

/** The api: one module per feature, each with its controller, query, cache and docs, over the read database. */
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
        ReadDbModule.forRoot(config),
        AuthModule,
        EventsModule,
        OverviewModule,
        ProjectStatusModule,
        PersonalDashboardModule,
        ProfileModule,
        InsightsModule,
        HealthModule,
        DocsModule,
        ConsoleModule,
        DiffModule,
      ],
      providers: [
        {
          provide: HttpMetrics,
          inject: [MetricsRegistry],
          useFactory: (r: MetricsRegistry) => new HttpMetrics(r),
        },
        { provide: APP_FILTER, useClass: AllErrorsFilter },
        // every /api/admin route is authenticated, including those added later
        { provide: APP_GUARD, useExisting: AdminAuthGuard },
      ],
    };
  }
}
