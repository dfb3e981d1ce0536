import { Module } from '@nestjs/common';
import { EventLogReadModel } from '@flaglens/projections';
import { AuthModule } from '../auth/auth.module';
import { ProjectionReads } from '../read-db/projection-reads.service';
import { EventsController } from './events.controller';
import { FlagEventLists, FlagEventsCache } from './flag-event-lists';
import { GetFlagEventsHandler, GetLatestEventsHandler } from './get-flag-events.query';

/** GET /api/admin/events/{featureName} and GET /api/admin/events. */
@Module({
  imports: [AuthModule],
  controllers: [EventsController],
  providers: [
    {
      provide: EventLogReadModel,
      inject: [ProjectionReads],
      useFactory: (reads: ProjectionReads) => new EventLogReadModel(reads),
    },
    FlagEventsCache,
    FlagEventLists,
    GetFlagEventsHandler,
    GetLatestEventsHandler,
  ],
})
export class EventsModule {}
