import type { ProjectAccessReader } from '../overview/overview.read-model';
import type { IdentityReadModel } from './identity.read-model';

/** A caller's favourite projects, from the identity projection (semantics §5.3). */
export class IdentityProjectAccessReader implements ProjectAccessReader {
  constructor(private readonly identity: IdentityReadModel) {}

  favorite(projectId: string, userId: number): Promise<boolean> {
    return this.identity.isFavoriteProject(userId, projectId);
  }
}
