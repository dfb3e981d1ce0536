import { LRUCache } from 'lru-cache';
import { dropsOf, type Dropped, type Changes, type Reads } from '@flaglens/projections';
import type { ChangeListener } from './change-listener.service';
import type { ProjectionReads } from './projection-reads.service';

/** What a load gives: the value, and how long it may be served. */
export interface Loaded<V> {
  value: V;
  /** Epoch ms: served from then on (a value computed for one instant is not one of an earlier instant). */
  validFrom?: number;
  /** Epoch ms: served until then (exclusive); none: until a change drops it. */
  validUntil?: number | null;
  /** false: shared with the requests that wait for it, but not kept. */
  keep?: boolean;
}

export interface ChangeDroppedCacheOptions<V> {
  /** Memory for the entries, keys included (`sizeOf` estimates one entry). */
  maxBytes: number;
  sizeOf(value: V, key: string): number;
  /**
   * The tags of an entry (e.g. the project an overview is of): a change notice drops entries by tag.
   * Default: the key itself.
   */
  tagsOf?(key: string): readonly string[];
  /**
   * What its entries read (a read model's declaration): a notice drops the entries of the keys (tags) at which
   * it names one of these tables, all of them when it names one at every key (or when they are by no key).
   */
  reads: Reads;
  /** No entry is served past this age (credential-derived answers); none: no bound. */
  maxAgeMs?: number;
}

interface Entry<V> {
  value: V;
  validFrom: number;
  validUntil: number | null;
  schema: string | undefined;
}

const validAt = (e: { validFrom?: number; validUntil?: number | null }, now: number): boolean =>
  (e.validFrom === undefined || now >= e.validFrom) && (e.validUntil == null || now < e.validUntil);

/**
 * Tags whose last drop is remembered (to tell whether a load overlapped a change of its own data). Past this
 * many, they are forgotten at once and every load running then counts as overlapping a change (not kept).
 */
export const TRACKED_DROPS = 50_000;

interface Flight<V> {
  seq: number;
  schema: string | undefined;
  at: number;
  promise: Promise<Loaded<V>>;
}

/**
 * The api's one cache: answers kept until the projector's change feed says the data behind them changed.
 *
 * - Dropped by tag when a change notice names a table the entries read at one of the entry's tags (`reads`,
 *   change-feed.ts `dropsOf`), all of them on a reset
 *   (the feed was lost or is back), and unusable once the api reads another projection version.
 * - Served only while the change feed is listened to, for an instant before the entry's `validUntil`, and no
 *   older than `maxAgeMs`; a value loaded while a notice dropped one of its tags (or everything) is not kept
 *   (it may predate the change). Notices about other tags do not matter to it: under a steady stream of
 *   changes, some notice arrives during almost every load.
 * - Loads are single-flight: requests for a key that arrive while it loads share the load (unless a notice
 *   dropped one of its tags since it started), when its result is valid at their instant.
 * - Bounded in bytes.
 */
export class ChangeDroppedCache<V> {
  private readonly lru: LRUCache<string, Entry<V>>;
  private readonly byTag = new Map<string, Set<string>>();
  private readonly flights = new Map<string, Flight<V>>();
  /** change notices so far */
  private seq = 0;
  /** the notice that last dropped everything (a reset, 'all', or forgetting `droppedAt`) */
  private allDroppedAt = 0;
  /** tag -> the notice that last dropped it, since `allDroppedAt` */
  private readonly droppedAt = new Map<string, number>();

  constructor(
    private readonly changes: ChangeListener,
    private readonly reads: Pick<ProjectionReads, 'schema'>,
    private readonly options: ChangeDroppedCacheOptions<V>,
  ) {
    this.lru = new LRUCache<string, Entry<V>>({
      maxSize: Math.max(1, options.maxBytes),
      sizeCalculation: (e, key) => Math.max(1, options.sizeOf(e.value, key) + key.length * 2 + 64),
      ...(options.maxAgeMs ? { ttl: options.maxAgeMs } : {}),
      dispose: (_e, key) => this.untag(key),
    });
    const dropped: (c: Changes) => Dropped = dropsOf(options.reads);
    changes.subscribe((c) => {
      const notice = ++this.seq;
      if (c === 'reset') return this.clear(notice);
      const tags = dropped(c);
      if (tags === 'all') return this.clear(notice);
      if (tags === 'none') return;
      for (const t of tags) {
        this.dropTag(t);
        this.droppedAt.set(t, notice);
      }
      if (this.droppedAt.size > TRACKED_DROPS) {
        this.droppedAt.clear();
        this.allDroppedAt = notice;
      }
    });
  }

  /** Whether entries may be served and kept at all (caching on, and the change feed listened to). */
  get usable(): boolean {
    return this.changes.enabled && this.changes.listening && this.options.maxBytes > 0;
  }

  /** The entry for `key` valid at `now` (epoch ms), if any. */
  get(key: string, now = Date.now()): V | undefined {
    if (!this.usable) return undefined;
    const e = this.lru.get(key);
    if (!e) return undefined;
    if (e.schema !== this.reads.schema) {
      this.lru.delete(key);
      return undefined;
    }
    return validAt(e, now) ? e.value : undefined;
  }

  /** The entry for `key` valid at `now`, else the result of a load (shared with concurrent requests). */
  async getOrLoad(key: string, load: () => Promise<Loaded<V>>, now = Date.now()): Promise<V> {
    const hit = this.get(key, now);
    if (hit !== undefined) return hit;
    const schema = this.reads.schema;
    const running = this.flights.get(key);
    if (running && !this.changedSince(key, running.seq) && running.schema === schema && running.at <= now) {
      const loaded = await running.promise;
      if (validAt(loaded, now)) return loaded.value;
    }
    const flight: Flight<V> = { seq: this.seq, schema, at: now, promise: load() };
    this.flights.set(key, flight);
    try {
      const loaded = await flight.promise;
      if (
        loaded.keep !== false &&
        this.usable &&
        !this.changedSince(key, flight.seq) &&
        schema === this.reads.schema
      )
        this.set(key, loaded, schema);
      return loaded.value;
    } finally {
      if (this.flights.get(key) === flight) this.flights.delete(key);
    }
  }

  /** A token to pass to `setIfUnchanged`, taken before reading the database. */
  begin(): number {
    return this.seq;
  }

  /** Keeps a value read since `token` was taken, unless a notice dropped one of its tags in between. */
  setIfUnchanged(key: string, loaded: Loaded<V>, token: number): void {
    if (this.usable && !this.changedSince(key, token)) this.set(key, loaded, this.reads.schema);
  }

  /** The tags of an entry (`options.tagsOf`, else its key). */
  private tagsOf(key: string): readonly string[] {
    return this.options.tagsOf?.(key) ?? [key];
  }

  /** Whether a notice after `notice` dropped everything or one of the tags of `key`. */
  private changedSince(key: string, notice: number): boolean {
    if (this.allDroppedAt > notice) return true;
    for (const t of this.tagsOf(key)) if ((this.droppedAt.get(t) ?? 0) > notice) return true;
    return false;
  }

  private set(key: string, loaded: Loaded<V>, schema: string | undefined): void {
    this.lru.set(key, {
      value: loaded.value,
      validFrom: loaded.validFrom ?? Number.NEGATIVE_INFINITY,
      validUntil: loaded.validUntil ?? null,
      schema,
    });
    for (const t of this.tagsOf(key)) {
      const keys = this.byTag.get(t) ?? new Set<string>();
      keys.add(key);
      this.byTag.set(t, keys);
    }
  }

  private untag(key: string): void {
    for (const t of this.tagsOf(key)) {
      const keys = this.byTag.get(t);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) this.byTag.delete(t);
    }
  }

  private dropTag(tag: string): void {
    for (const key of [...(this.byTag.get(tag) ?? [])]) this.lru.delete(key);
  }

  private clear(notice: number): void {
    this.lru.clear();
    this.byTag.clear();
    this.droppedAt.clear();
    this.allDroppedAt = notice;
  }
}
