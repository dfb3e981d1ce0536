import { Module } from '@nestjs/common';
import { AppConfig, unleashMajor } from '@flaglens/config';
import { OverviewReadModel } from '@flaglens/projections';
import { AuthModule } from '../auth/auth.module';
import { ProjectionReads } from '../read-db/projection-reads.service';
import { GetProjectOverviewHandler } from './get-project-overview.query';
import { OverviewCache } from './overview.cache';
import { OverviewController } from './overview.controller';

/** GET /api/admin/projects/{projectId}/overview. */
@Module({
  imports: [AuthModule],
  controllers: [OverviewController],
  providers: [
    {
      provide: OverviewReadModel,
      inject: [ProjectionReads, AppConfig],
      useFactory: (reads: ProjectionReads, config: AppConfig) =>
        new OverviewReadModel(reads, unleashMajor(config.UNLEASH_RELEASE)),
    },
    OverviewCache,
    GetProjectOverviewHandler,
  ],
})
export class OverviewModule {}
