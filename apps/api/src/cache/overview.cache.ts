import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '@flaglens/config';
import { snapshotValidAt, withFavorite, type OverviewSnapshot } from '@flaglens/projections';
import { ChangeListener } from './change-listener.service';
import { ProjectionReads } from './projection-reads.service';
import { jsonBody, type JsonBody } from '../common/json-body';

/** A project's overview serialised for both values of `favorite`, with the instants it is exact for. */
export interface OverviewBodies {
  at: number;
  validUntil: number | null;
  favorite: JsonBody;
  notFavorite: JsonBody;
}

/** What a caller may see of a project: visibility (private projects) and their favourite. */
export interface OverviewAccess {
  visible: boolean;
  favorite: boolean;
}

export interface OverviewCacheToken {
  seq: number;
  schema: string | undefined;
}

export function overviewBodies(s: OverviewSnapshot): OverviewBodies {
  return {
    at: s.at,
    validUntil: s.validUntil,
    favorite: jsonBody(JSON.stringify(withFavorite(s.body, true))),
    notFavorite: jsonBody(JSON.stringify(withFavorite(s.body, false))),
  };
}

const ACCESS_ENTRIES = 100_000;

/**
 * Serialised overview bodies per project (and `?archived=`), and each caller's access per project, kept
 * exactly fresh:
 * - dropped when the projector commits a batch that may change the project (`Changes.projects`, `'*'` or a
 *   reset of the change feed: everything) and when the api switches to another projection version;
 * - served only for clock instants in [at, validUntil): the snapshot's values are the same at any of them
 *   (the read model computes the next window edge with the values);
 * - served and stored only while the change feed is listened to; a body read while a change arrived is not
 *   stored (it may predate the change).
 */
@Injectable()
export class OverviewCache {
  private readonly bodies?: LRUCache<string, OverviewBodies>;
  private readonly access?: LRUCache<string, OverviewAccess>;
  /** Per project, bumped when its entries are dropped: access keys carry it, so old ones become unreachable. */
  private readonly generation = new Map<string, number>();
  private seq = 0;
  private schema: string | undefined;

  constructor(
    config: AppConfig,
    private readonly changes: ChangeListener,
    private readonly reads: ProjectionReads,
  ) {
    if (!changes.enabled) return;
    this.bodies = new LRUCache<string, OverviewBodies>({
      maxSize: config.API_CACHE_MB * 1024 * 1024,
      sizeCalculation: (b, key) => b.favorite.bytes.length + b.notFavorite.bytes.length + key.length + 256,
    });
    this.access = new LRUCache<string, OverviewAccess>({ max: ACCESS_ENTRIES });
    changes.subscribe((c) => {
      this.seq++;
      if (c === 'reset' || c.projects === '*') this.clear();
      else for (const p of c.projects) this.drop(p);
    });
  }

  private clear(): void {
    this.bodies?.clear();
    this.access?.clear();
    this.generation.clear();
  }

  private drop(project: string): void {
    this.bodies?.delete(bodyKey(project, false));
    this.bodies?.delete(bodyKey(project, true));
    this.generation.set(project, (this.generation.get(project) ?? 0) + 1);
  }

  /** Serving is allowed: listening, and the entries were read from the version the api reads now. */
  private usable(): boolean {
    if (!this.bodies || !this.changes.listening) return false;
    if (this.reads.schema !== this.schema) {
      this.clear();
      this.schema = this.reads.schema;
    }
    return true;
  }

  private accessKey(project: string, userId: number): string {
    return `${this.generation.get(project) ?? 0}\u0000${userId}\u0000${project}`;
  }

  /** A token to pass to the setters, taken before reading the database. */
  begin(): OverviewCacheToken {
    return { seq: this.seq, schema: this.reads.schema };
  }

  private storable(token: OverviewCacheToken): boolean {
    return this.usable() && token.seq === this.seq && token.schema === this.schema;
  }

  body(project: string, archivedFlags: boolean, now: number): OverviewBodies | undefined {
    if (!this.usable()) return undefined;
    const b = this.bodies!.get(bodyKey(project, archivedFlags));
    return b && snapshotValidAt(b, now) ? b : undefined;
  }

  setBody(project: string, archivedFlags: boolean, bodies: OverviewBodies, token: OverviewCacheToken): void {
    if (this.storable(token)) this.bodies!.set(bodyKey(project, archivedFlags), bodies);
  }

  accessOf(project: string, userId: number): OverviewAccess | undefined {
    return this.usable() ? this.access!.get(this.accessKey(project, userId)) : undefined;
  }

  setAccess(project: string, userId: number, access: OverviewAccess, token: OverviewCacheToken): void {
    if (this.storable(token)) this.access!.set(this.accessKey(project, userId), access);
  }
}

const bodyKey = (project: string, archivedFlags: boolean) => `${archivedFlags ? 'a' : 'l'}:${project}`;
