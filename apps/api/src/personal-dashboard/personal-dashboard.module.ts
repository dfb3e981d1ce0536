import { Module } from '@nestjs/common';
import { rowsVia } from '@flaglens/persistence';
import { PersonalDashboardReadModel } from '@flaglens/projections';
import { AuthModule } from '../auth/auth.module';
import { ReadsModule } from '../reads/reads.module';
import { ProjectionReads } from '../read-db/projection-reads.service';
import { GetPersonalDashboardHandler } from './get-personal-dashboard.query';
import { PersonalDashboardController } from './personal-dashboard.controller';
import { PersonalDashboardUrl } from './personal-dashboard-url';

/** GET /api/admin/personal-dashboard and /api/admin/personal-dashboard/{projectId} (Unleash 8.2.0). */
@Module({
  imports: [AuthModule, ReadsModule],
  controllers: [PersonalDashboardController],
  providers: [
    PersonalDashboardUrl,
    {
      provide: PersonalDashboardReadModel,
      inject: [ProjectionReads, PersonalDashboardUrl],
      useFactory: (reads: ProjectionReads, url: PersonalDashboardUrl) =>
        new PersonalDashboardReadModel(rowsVia(reads), url.value),
    },
    GetPersonalDashboardHandler,
  ],
})
export class PersonalDashboardModule {}
