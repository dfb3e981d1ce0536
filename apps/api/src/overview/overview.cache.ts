import { Injectable } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import {
  IDENTITY_READS,
  OVERVIEW_READS,
  OVERVIEW_STATE_READS,
  withFavorite,
  type OverviewSnapshot,
  type OverviewState,
} from '@flaglens/projections';
import { CREDENTIAL_MAX_AGE_MS } from '../auth/caller.cache';
import { jsonBody, type JsonBody } from '../common/json-body';
import { ChangeDroppedCache, type Loaded } from '../read-db/change-dropped.cache';
import { ChangeListener } from '../read-db/change-listener.service';
import { ProjectionReads } from '../read-db/projection-reads.service';

/** A project's overview serialised for both values of `favorite`. */
export interface OverviewBodies {
  favorite: JsonBody;
  notFavorite: JsonBody;
}

/** What a caller may see of a project: visibility (private projects) and their favourite. */
export interface OverviewAccess {
  visible: boolean;
  favorite: boolean;
}

/** A snapshot's bodies, served for the instants it is exact for ([at, validUntil)). */
export function overviewBodies(s: OverviewSnapshot): Loaded<OverviewBodies | null> {
  return {
    value: {
      favorite: jsonBody(JSON.stringify(withFavorite(s.body, true))),
      notFavorite: jsonBody(JSON.stringify(withFavorite(s.body, false))),
    },
    validFrom: s.at,
    validUntil: s.validUntil,
  };
}

const projectOf = (key: string): string => key.slice(key.indexOf(':') + 1);

/**
 * The overview's caches (one ChangeDroppedCache each):
 * - the bodies of a project (and `?archived=`), dropped when a batch writes what they read (OVERVIEW_READS) at
 *   the project, and served only for the instants they are exact for (the read model computes the next window
 *   edge with the values);
 * - the state of a project's overview (and `?archived=`), dropped only when a batch writes what the state reads
 *   (OVERVIEW_STATE_READS; most batches change only the activity): a body dropped is read again as the
 *   activity alone, on the state kept;
 * - a caller's access to a project (visibility, favourite), dropped when identity's tables are written
 *   (IDENTITY_READS: memberships, favourites, a project's creation, mode or deletion), and at most
 *   CREDENTIAL_MAX_AGE_MS old.
 */
@Injectable()
export class OverviewCache {
  /** null: no such project (shared with the requests waiting for it, never kept) */
  readonly bodies: ChangeDroppedCache<OverviewBodies | null>;
  readonly access: ChangeDroppedCache<OverviewAccess>;
  readonly states: ChangeDroppedCache<OverviewState>;

  constructor(config: AppConfig, changes: ChangeListener, reads: ProjectionReads) {
    this.bodies = new ChangeDroppedCache(changes, reads, {
      maxBytes: config.API_CACHE_MB * 1024 * 1024,
      sizeOf: (b) => (b ? b.favorite.bytes.length + b.notFavorite.bytes.length : 0),
      tagsOf: (key) => [projectOf(key)],
      // a body holds a state: OVERVIEW_READS holds every table of OVERVIEW_STATE_READS
      reads: OVERVIEW_READS,
    });
    this.states = new ChangeDroppedCache(changes, reads, {
      maxBytes: Math.max(1, Math.floor(config.API_CACHE_MB / 4)) * 1024 * 1024,
      // the row's text, twice (UTF-16), and the object's overhead
      sizeOf: (s) => JSON.stringify(s.row).length * 2 + 256,
      tagsOf: (key) => [projectOf(key)],
      reads: OVERVIEW_STATE_READS,
    });
    this.access = new ChangeDroppedCache(changes, reads, {
      maxBytes: 16 * 1024 * 1024,
      sizeOf: () => 16,
      tagsOf: (key) => [projectOf(key)],
      // access reads identity's tables only (users, roles, groups, memberships, favourites and the project
      // states identity keeps: present, archived, mode): a change of the project's flags leaves it as it is
      reads: IDENTITY_READS,
      maxAgeMs: CREDENTIAL_MAX_AGE_MS,
    });
  }
}

/** Keys: `<a|l>:<project>` for bodies (`?archived=` or not), `<user>:<project>` for access. */
export const bodiesKey = (project: string, archivedFlags: boolean): string =>
  `${archivedFlags ? 'a' : 'l'}:${project}`;
export const accessKey = (project: string, userId: number): string => `${userId}:${project}`;
