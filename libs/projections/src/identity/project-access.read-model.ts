import type { ProjectAccessReader, ProjectAccessSummary } from '../overview/overview.read-model';
import type { IdentityReadModel } from './identity.read-model';

/** The overview's members, members added and favourite, from the identity projection (semantics §3.5, §5.3). */
export class IdentityProjectAccessReader implements ProjectAccessReader {
  constructor(private readonly identity: IdentityReadModel) {}

  async summary(projectId: string, userId: number | null, addedSince: Date): Promise<ProjectAccessSummary> {
    const [members, membersAddedSince, favorite] = await Promise.all([
      this.identity.countProjectMembers(projectId),
      this.identity.countProjectMembersAddedSince(projectId, addedSince),
      userId === null ? Promise.resolve(false) : this.identity.isFavoriteProject(userId, projectId),
    ]);
    return { members, membersAddedSince, favorite };
  }

  favorite(projectId: string, userId: number): Promise<boolean> {
    return this.identity.isFavoriteProject(userId, projectId);
  }
}
