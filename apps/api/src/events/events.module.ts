import { Module } from '@nestjs/common';
import { EventLogReadModel } from '@flaglens/projections';
import { AuthModule } from '../auth/auth.module';
import { ReadsModule } from '../reads/reads.module';
import { ProjectionReads } from '../read-db/projection-reads.service';
import { EventsController } from './events.controller';
import { EventSearchController } from './event-search.controller';
import {
  EventCreatorsHandler,
  EventSearchCache,
  ProjectEventsHandler,
  SearchEventsHandler,
} from './search-events.query';
import { FlagEventLists, FlagEventsCache } from './flag-event-lists';
import { GetFlagEventsHandler, GetLatestEventsHandler } from './get-flag-events.query';

/**
 * GET /api/admin/events/{featureName}, GET /api/admin/events (?project=), GET /api/admin/search/events and
 * GET /api/admin/event-creators.
 */
@Module({
  imports: [AuthModule, ReadsModule],
  controllers: [EventsController, EventSearchController],
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
    EventSearchCache,
    SearchEventsHandler,
    EventCreatorsHandler,
    ProjectEventsHandler,
  ],
  // the console's event pages read through the same read model
  exports: [EventLogReadModel],
})
export class EventsModule {}
