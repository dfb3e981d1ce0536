import { Module } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { rowsVia } from '@flaglens/persistence';
import { IdentityReadModel, InsightsReadModel, LifecycleReadModel } from '@flaglens/projections';
import { AuthModule } from '../auth/auth.module';
import { ReadsModule } from '../reads/reads.module';
import { ProjectionReads } from '../read-db/projection-reads.service';
import { GetInsightsHandler } from './get-insights.query';
import { InsightsCache } from './insights.cache';
import { InsightsController } from './insights.controller';
import { GetLifecycleInsightsHandler } from './get-lifecycle-insights.query';
import { LifecycleInsightsCache } from './lifecycle-insights.cache';
import { LifecycleInsightsController } from './lifecycle-insights.controller';

/**
 * GET /api/admin/insights, the deprecated GET /api/admin/dashboard/executive and GET
 * /api/admin/insights/lifecycle.
 */
@Module({
  imports: [AuthModule, ReadsModule],
  controllers: [InsightsController, LifecycleInsightsController],
  providers: [
    {
      provide: InsightsReadModel,
      inject: [ProjectionReads, IdentityReadModel, AppConfig],
      useFactory: (reads: ProjectionReads, identity: IdentityReadModel, config: AppConfig) =>
        new InsightsReadModel(
          rowsVia(reads),
          (projectIds) => identity.countMembersOfProjects(projectIds),
          config.INSIGHTS_MAX_WEEKS,
        ),
    },
    InsightsCache,
    GetInsightsHandler,
    {
      provide: LifecycleReadModel,
      inject: [ProjectionReads],
      useFactory: (reads: ProjectionReads) => new LifecycleReadModel(rowsVia(reads)),
    },
    LifecycleInsightsCache,
    GetLifecycleInsightsHandler,
  ],
})
export class InsightsModule {}
