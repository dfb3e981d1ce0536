import { Module } from '@nestjs/common';
import { rowsVia } from '@flaglens/persistence';
import { IdentityReadModel, PersonalAccessTokens } from '@flaglens/projections';
import { ProjectionReads } from '../read-db/projection-reads.service';
import { AdminAuthGuard } from './admin-auth.guard';
import { CallerCache } from './caller.cache';
import { Callers } from './callers';
import { UnleashCredentials } from './unleash-credentials';
import { Visibility } from './visibility.service';

/** Who the caller is (personal access tokens, Unleash's credentials) and what they may see (private projects). */
@Module({
  providers: [
    {
      provide: IdentityReadModel,
      inject: [ProjectionReads],
      useFactory: (reads: ProjectionReads) => new IdentityReadModel(rowsVia(reads, { prepared: true })),
    },
    {
      // tokens (public) are checked against users of the active projection version
      provide: PersonalAccessTokens,
      inject: [ProjectionReads],
      useFactory: (reads: ProjectionReads) => new PersonalAccessTokens(rowsVia(reads)),
    },
    CallerCache,
    UnleashCredentials,
    Visibility,
    Callers,
    AdminAuthGuard,
  ],
  exports: [IdentityReadModel, CallerCache, Visibility, AdminAuthGuard, Callers],
})
export class AuthModule {}
