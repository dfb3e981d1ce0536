import { Module } from '@nestjs/common';
import { OverviewReadModel } from '@flaglens/projections';
import { AuthModule } from '../auth/auth.module';
import { ReadsModule } from '../reads/reads.module';
import { ProjectionReads } from '../read-db/projection-reads.service';
import { GetProjectOverviewHandler } from './get-project-overview.query';
import { OverviewCache } from './overview.cache';
import { OverviewController } from './overview.controller';

/** GET /api/admin/projects/{projectId}/overview. */
@Module({
  imports: [AuthModule, ReadsModule],
  controllers: [OverviewController],
  providers: [
    {
      provide: OverviewReadModel,
      inject: [ProjectionReads],
      useFactory: (reads: ProjectionReads) => new OverviewReadModel(reads),
    },
    OverviewCache,
    GetProjectOverviewHandler,
  ],
})
export class OverviewModule {}
