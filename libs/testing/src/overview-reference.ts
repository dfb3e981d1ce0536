import type { ReadPool, RowQueryable } from '@flaglens/persistence';
import {
  OverviewReadModel,
  type OverviewSnapshot,
  type ProjectAccessReader,
  withFavorite,
} from '@flaglens/projections';

/**
 * A project's overview as one caller sees it (the snapshot plus the caller's favorite), read straight from the
 * projection with no cache: the reference the api's cached answers are compared with.
 */
export class OverviewReference {
  private readonly model: OverviewReadModel;

  constructor(
    db: RowQueryable | ReadPool,
    private readonly access: ProjectAccessReader,
  ) {
    this.model = new OverviewReadModel(db);
  }

  async overview(
    projectId: string,
    now: Date,
    userId: number | null,
    archivedFlags = false,
  ): Promise<Record<string, unknown> | null> {
    const [snapshot, favorite] = await Promise.all([
      this.model.snapshot(projectId, now, archivedFlags),
      userId === null ? false : this.access.favorite(projectId, userId),
    ]);
    return snapshot && withFavorite(snapshot.body, favorite);
  }

  snapshot(projectId: string, now: Date, archivedFlags = false): Promise<OverviewSnapshot | null> {
    return this.model.snapshot(projectId, now, archivedFlags);
  }
}
