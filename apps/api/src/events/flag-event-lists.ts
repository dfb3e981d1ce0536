import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import DataLoader from 'dataloader';
import { EventLogReadModel, FLAG_EVENTS_READS, wireEvents } from '@flaglens/projections';
import { AppConfig } from '@flaglens/config';
import { jsonBody, type JsonBody } from '../common/json-body';
import { ChangeDroppedCache } from '../read-db/change-dropped.cache';
import { ChangeListener } from '../read-db/change-listener.service';
import { ProjectionReads } from '../read-db/projection-reads.service';

/**
 * Lists of at most this many events are answered whole, kept in the cache with their ETag; a longer one is
 * streamed from its first page of this many events on, so its first byte waits for those alone, not for the
 * rest of its history (at 10 million events an ordinary flag has about 2,000, each on a page of its own).
 */
export const WHOLE_LIST_EVENTS = 250;
/** Events rendered between two turns of the event loop (a few milliseconds of work). */
export const SLICE_EVENTS = 250;
/** Lists read by one statement at most (the misses of one turn of the event loop, usually far fewer). */
export const LISTS_PER_READ = 64;
/** A streamed list's bytes are kept (for requests that join late, and for the cache) up to this size. */
export const KEPT_BYTES = 8 * 1024 * 1024;

/** The head and the tail of a flag's list body; key order of the reference: version, toggleName, events, totalEvents. */
const head = (featureName: string) => `{"version":1,"toggleName":${JSON.stringify(featureName)},"events":[`;
const tail = (total: number) => `],"totalEvents":${total}}`;

export function flagEventsBody(featureName: string, eventsJson: string, total: number): JsonBody {
  return jsonBody(head(featureName) + eventsJson + tail(total));
}

/**
 * Renders stored bodies slice by slice, letting other requests in between slices (not after the last: a list
 * of one slice, the usual, is answered in the turn of the event loop that read it).
 */
async function* rendered(bodies: string[], first: boolean): AsyncGenerator<string> {
  for (let i = 0; i < bodies.length; i += SLICE_EVENTS) {
    if (i > 0) await yieldToLoop();
    const json = wireEvents(bodies.slice(i, i + SLICE_EVENTS));
    yield (first && i === 0 ? '' : ',') + json;
  }
}

/**
 * A flag's event list, of any length, read once for all the requests that ask for it at the same time.
 *
 * One read-only cursor per list. Its first page holds up to WHOLE_LIST_EVENTS + 1 events: a list that fits is
 * answered whole (and kept in the cache with its ETag); a longer one is streamed, page after page, to every
 * request with backpressure (the slowest reader sets the pace), so memory stays flat, and the event loop is
 * held no longer than rendering SLICE_EVENTS events. Requests that arrive while the bytes written so far are
 * still kept (KEPT_BYTES) join the same read and get those bytes first; a list that fits in KEPT_BYTES is then
 * cached as a short one is.
 */
/**
 * Whole lists (the short ones, and long ones that fitted in KEPT_BYTES) by feature name, for callers who may
 * see every project; dropped when the projector commits events of the flag.
 */
@Injectable()
export class FlagEventsCache extends ChangeDroppedCache<JsonBody | Broadcast> {
  constructor(config: AppConfig, changes: ChangeListener, reads: ProjectionReads) {
    super(changes, reads, {
      maxBytes: config.API_CACHE_MB * 1024 * 1024,
      sizeOf: (b) => (b instanceof Broadcast ? 0 : b.bytes.length),
      reads: FLAG_EVENTS_READS,
    });
  }
}

/**
 * A flag's event list, of any length, read once for all the requests that ask for it at the same time.
 *
 * One read-only cursor per list. Its first page holds up to WHOLE_LIST_EVENTS + 1 events: a list that fits is
 * answered whole (and kept in the cache with its ETag); a longer one is streamed, page after page, to every
 * request with backpressure (the slowest reader sets the pace), so memory stays flat, and the event loop is
 * held no longer than rendering SLICE_EVENTS events. Requests that arrive while the bytes written so far are
 * still kept (KEPT_BYTES) join the same read and get those bytes first; a list that fits in KEPT_BYTES is then
 * cached as a short one is. Concurrent requests share the first read through the cache's single flight.
 * A list that fits is first read by one named statement, without a cursor nor a transaction, together with
 * the other lists asked for in the same turn of the event loop (the common miss costs a share of one round
 * trip); only a list longer than that is read again through the cursor.
 */
@Injectable()
export class FlagEventLists {
  private readonly log = new Logger(FlagEventLists.name);
  /** key -> a long list being streamed that can still be joined */
  private readonly streaming = new Map<string, Broadcast>();
  /**
   * The lists (for callers who may see every project) asked for in one turn of the event loop, read by one
   * statement when the turn ends: one round trip to Postgres for the misses of the requests that arrived
   * together, instead of one each.
   */
  private readonly wholeLists = new DataLoader<string, string[] | null>(
    (names) => this.events.storedEventsOfFlags(names, WHOLE_LIST_EVENTS),
    { cache: false, maxBatchSize: LISTS_PER_READ, batchScheduleFn: (read) => setImmediate(read) },
  );

  constructor(
    private readonly events: EventLogReadModel,
    private readonly reads: ProjectionReads,
    private readonly cache: FlagEventsCache,
  ) {}

  /**
   * The list of `featureName` without events naming a `hidden` project: a body (cached or read whole), or a
   * stream of it. `key` identifies the list and the caller's visibility set; `cacheable` whether it may be kept
   * (the cache holds full lists only); `at`: the list as of that instant (never cacheable).
   */
  async open(
    key: string,
    featureName: string,
    hidden: string[],
    cacheable: boolean,
    at: string | null = null,
  ): Promise<JsonBody | Readable> {
    const joined = this.streaming.get(key)?.join();
    if (joined) return joined;
    const keep = cacheable && at === null;
    const outcome = await this.cache.getOrLoad(key, async () => {
      const read = await this.read(key, featureName, hidden, keep, at);
      return { value: read, keep: keep && !(read instanceof Broadcast) };
    });
    if (!(outcome instanceof Broadcast)) return outcome;
    // a long list: join its broadcast, or (if it went too far to join) start another read
    return outcome.join() ?? this.open(key, featureName, hidden, cacheable, at);
  }

  private async read(
    key: string,
    featureName: string,
    hidden: string[],
    cacheable: boolean,
    at: string | null,
  ): Promise<JsonBody | Broadcast> {
    const token = this.cache.begin();
    // most lists fit: one named statement (planned once per connection) answers them; a longer list is read
    // again, as a stream, by a cursor in a snapshot of its own
    const whole =
      hidden.length === 0 && at === null
        ? await this.wholeLists.load(featureName)
        : await this.events.storedEventsOfFlag(featureName, hidden, WHOLE_LIST_EVENTS, at);
    if (whole) {
      let json = '';
      for await (const part of rendered(whole, true)) json += part;
      return flagEventsBody(featureName, json, whole.length);
    }
    const client = await this.reads.pool().connect();
    let cursor: Awaited<ReturnType<EventLogReadModel['openEventsOfFlag']>>;
    let first: string[];
    try {
      cursor = await this.events.openEventsOfFlag(client, featureName, hidden, at);
      try {
        first = await cursor.next(WHOLE_LIST_EVENTS + 1);
      } catch (e) {
        await cursor.close().catch(() => undefined);
        throw e;
      }
      if (first.length <= WHOLE_LIST_EVENTS) await cursor.close();
    } catch (e) {
      client.release();
      throw e;
    }
    if (first.length <= WHOLE_LIST_EVENTS) {
      client.release();
      let json = '';
      for await (const part of rendered(first, true)) json += part;
      return flagEventsBody(featureName, json, first.length);
    }
    // long: the broadcast owns the cursor and the connection from here
    const broadcast = new Broadcast();
    this.streaming.set(key, broadcast);
    const open = cursor;
    void broadcast
      .run(featureName, first, open, async () => {
        await open.close().catch(() => undefined);
        client.release();
      })
      .then((kept) => {
        if (kept && cacheable)
          this.cache.setIfUnchanged(key, { value: jsonBody(kept.toString('utf8')) }, token);
      })
      .catch((e: Error) => this.log.warn(`streaming the events of a flag failed: ${e.message}`))
      .finally(() => {
        if (this.streaming.get(key) === broadcast) this.streaming.delete(key);
      });
    return broadcast;
  }
}

/** One cursor read written to several responses. */
export class Broadcast {
  private readonly readers = new Set<PassThrough>();
  /** the bytes written so far while they fit in KEPT_BYTES; null once they no longer do */
  private kept: Buffer[] | null = [];
  private keptBytes = 0;
  private ended = false;

  /** A new reader, given every byte written so far; undefined once those bytes are no longer kept. */
  join(): PassThrough | undefined {
    if (this.kept === null || this.ended) return undefined;
    const reader = new PassThrough({ highWaterMark: 256 * 1024 });
    for (const chunk of this.kept) reader.write(chunk);
    this.readers.add(reader);
    reader.once('close', () => this.readers.delete(reader));
    return reader;
  }

  /**
   * Writes the list: the head, the first page (already fetched), then page after page, then the tail. Resolves
   * with the whole body when it was kept whole. `release` ends the cursor and returns the connection.
   */
  async run(
    featureName: string,
    first: string[],
    cursor: { next(n: number): Promise<string[]> },
    release: () => Promise<void>,
  ): Promise<Buffer | null> {
    try {
      await this.write(head(featureName));
      let total = 0;
      for (let page = first; page.length > 0; page = await cursor.next(SLICE_EVENTS * 4)) {
        for await (const part of rendered(page, total === 0)) await this.write(part);
        total += page.length;
        if (this.readers.size === 0 && this.kept === null) return null; // nobody left to write to
      }
      await this.write(tail(total));
      this.ended = true;
      for (const r of this.readers) r.end();
      return this.kept === null ? null : Buffer.concat(this.kept);
    } catch (e) {
      this.ended = true;
      for (const r of this.readers) r.destroy(e as Error);
      throw e;
    } finally {
      this.ended = true;
      await release();
    }
  }

  /** Writes to every reader and waits until each has room again (or has gone). */
  private async write(text: string): Promise<void> {
    const chunk = Buffer.from(text, 'utf8');
    if (this.kept !== null) {
      if (this.keptBytes + chunk.length <= KEPT_BYTES) {
        this.kept.push(chunk);
        this.keptBytes += chunk.length;
      } else this.kept = null;
    }
    const waits: Promise<unknown>[] = [];
    for (const r of this.readers)
      if (!r.write(chunk))
        waits.push(Promise.race([once(r, 'drain'), once(r, 'close')]).catch(() => undefined));
    await Promise.all(waits);
  }
}
