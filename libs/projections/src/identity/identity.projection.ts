import type { PoolClient } from 'pg';
import type { FlagEvent } from '@flaglens/contract';
import { EVERY, type Projection, type ProjectionContext, type SourcedEvent } from '../projection';
import { identityChanges, isIdentityEvent, type IdentityChangeSet } from './identity.logic';
import { applyIdentityChanges } from './identity.sql';

/** Users, roles, groups, project memberships, favourites and the project states identity needs. */
export class IdentityProjection implements Projection {
  readonly name = 'identity';
  /** Every table of identity-apply.sql, each keyed as `keysOf` says. */
  readonly writes = [
    'identity_users',
    'identity_roles',
    'identity_groups',
    'identity_group_users',
    'identity_pending_groups',
    'identity_project_members',
    'identity_member_versions',
    'identity_project_states',
    'identity_favorites',
  ];
  readonly scope = 'projects';

  handles(type: string): boolean {
    return isIdentityEvent(type);
  }

  /** A project's memberships and favourites by its events; a user's, role's or group's reach every project. */
  keysOf(e: FlagEvent): readonly string[] {
    return e.project ? [e.project] : [EVERY];
  }

  async apply(client: PoolClient, events: SourcedEvent[], context: ProjectionContext): Promise<void> {
    const sets: IdentityChangeSet[] = [];
    for (const s of events) {
      const mapped = identityChanges(s.event);
      if (mapped === null) continue;
      if ('skip' in mapped) context.skipped(s.event.id, mapped.skip);
      else sets.push(mapped.ok);
    }
    await applyIdentityChanges(client, sets);
  }
}
