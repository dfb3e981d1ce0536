import { Module } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { rowsVia } from '@flaglens/persistence';
import { IdentityReadModel, InsightsReadModel } from '@flaglens/projections';
import { AuthModule } from '../auth/auth.module';
import { ProjectionReads } from '../read-db/projection-reads.service';
import { GetInsightsHandler } from './get-insights.query';
import { InsightsCache } from './insights.cache';
import { InsightsController } from './insights.controller';

/** GET /api/admin/insights and the deprecated GET /api/admin/dashboard/executive. */
@Module({
  imports: [AuthModule],
  controllers: [InsightsController],
  providers: [
    {
      provide: InsightsReadModel,
      inject: [ProjectionReads, IdentityReadModel, AppConfig],
      useFactory: (reads: ProjectionReads, identity: IdentityReadModel, config: AppConfig) =>
        new InsightsReadModel(
          rowsVia(reads),
          (projectId) => identity.countProjectMembers(projectId),
          config.INSIGHTS_MAX_WEEKS,
        ),
    },
    InsightsCache,
    GetInsightsHandler,
  ],
})
export class InsightsModule {}
