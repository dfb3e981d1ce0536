import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { CachedReads } from './cached-reads';

/** The reads' one request path: declared routes (`read-route.ts`) and their cached fast path. */
@Module({
  imports: [AuthModule],
  providers: [CachedReads],
  exports: [CachedReads],
})
export class ReadsModule {}
