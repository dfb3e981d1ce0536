import { Module } from '@nestjs/common';
import { rowsVia } from '@flaglens/persistence';
import { ProjectStatusReadModel } from '@flaglens/projections';
import { AuthModule } from '../auth/auth.module';
import { ReadsModule } from '../reads/reads.module';
import { ProjectionReads } from '../read-db/projection-reads.service';
import { GetProjectStatusHandler } from './get-project-status.query';
import { ProjectStatusController } from './project-status.controller';

/** GET /api/admin/projects/{projectId}/status (Unleash 8.2.0). */
@Module({
  imports: [AuthModule, ReadsModule],
  controllers: [ProjectStatusController],
  providers: [
    {
      provide: ProjectStatusReadModel,
      inject: [ProjectionReads],
      useFactory: (reads: ProjectionReads) => new ProjectStatusReadModel(rowsVia(reads)),
    },
    GetProjectStatusHandler,
  ],
})
export class ProjectStatusModule {}
