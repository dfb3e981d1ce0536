import { Module } from '@nestjs/common';
import { FlagStateReadModel, ProjectsReadModel } from '@flaglens/projections';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { ProjectionReads } from '../read-db/projection-reads.service';
import { ConsoleController } from './console.controller';
import { OperationsService } from './operations.service';

/** The web console's own reads (its pages are static files: see console-static.ts). */
@Module({
  imports: [AuthModule, EventsModule],
  controllers: [ConsoleController],
  providers: [
    OperationsService,
    {
      provide: FlagStateReadModel,
      inject: [ProjectionReads],
      useFactory: (reads: ProjectionReads) => new FlagStateReadModel(reads),
    },
    {
      provide: ProjectsReadModel,
      inject: [ProjectionReads],
      useFactory: (reads: ProjectionReads) => new ProjectsReadModel(reads),
    },
  ],
})
export class ConsoleModule {}
