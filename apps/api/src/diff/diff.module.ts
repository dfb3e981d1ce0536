import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { DiffController } from './diff.controller';

/** GET /api/admin/diff: what changed in a read between two instants. */
@Module({
  imports: [AuthModule, EventsModule],
  controllers: [DiffController],
})
export class DiffModule {}
