import type { Kafka, Message, Producer } from 'kafkajs';
import { redactUrl } from '@flaglens/config';
import { RELEASE_HEADER } from '@flaglens/contract';
import { DEFAULT_GAP_OPTIONS, openGapIds, step, type GapOptions } from './gaps';
import { PositionStore, type SourcePosition, type SourceStatus } from './position-store';
import { UnleashDb, type EventRow, type PollResult } from './unleash-db';
import { SdkReader } from './sdk-reader';
import { SourceError, isRetryableSourceError, oneLine } from './errors';
import { backoffMs, connectWithRetry, sleep, type SourceLog } from './retry';

export type { SourceLog } from './retry';
import type { SourceMetrics } from './source-metrics';
import type { SdkEvent } from './sdk-events';

export interface DbConnectorOptions {
  /** The position's name in `source_positions` (one per Unleash). */
  source: string;
  unleashUrl: string;
  /** flaglens's database (the position store). */
  flaglensUrl: string;
  kafka: Kafka;
  topic: string;
  /** Copy up to Unleash's newest event and SDK usage, then stop. */
  once: boolean;
  /**
   * SDK usage only, not the `events` table (which Debezium carries: docs/debezium.md). Its position is stored
   * under its own name; the events' high-water mark stays 0.
   */
  sdkOnly?: boolean;
  /** Rows per read. */
  batchSize?: number;
  /** Wait between reads when caught up (ms). */
  pollMs?: number;
  /** Between reads of the SDK tables (ms). */
  sdkPollMs?: number;
  /** How long after its hour an hourly bucket is taken as closed (ms, on Unleash's clock). */
  bucketGraceMs?: number;
  gap?: GapOptions;
  metrics?: SourceMetrics;
  log: SourceLog;
  /** Stops a following connector (and a retry wait). */
  signal?: AbortSignal;
  /** Called after each read (tests, health). */
  onPoll?: (status: SourceStatus) => void;
}

export interface RunSummary {
  produced: number;
  sdkProduced: number;
  position: SourcePosition;
}

/** The origin a position belongs to: host, port and database of the URL, never its credentials. */
export function originOf(url: string): string {
  try {
    const u = new URL(url);
    return `postgres://${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return redactUrl(url);
  }
}

/** What `--sdk-only` reads of `events`: nothing. */
const NO_EVENTS: PollResult = {
  snapshot: { xmin: 0n, xmax: 0n, xip: [] },
  release: null,
  newestId: 0,
  newestAt: null,
  gapRows: [],
  newRows: [],
};

export { RELEASE_HEADER };

/** Messages of event rows (values built by Postgres, with the release when known) and SDK events. */
const rowMessage = (r: EventRow, release: string | null): Message =>
  release === null
    ? { key: r.key, value: r.value }
    : { key: r.key, value: r.value, headers: { [RELEASE_HEADER]: release } };
const sdkMessage = (e: SdkEvent): Message => ({ key: 'instance', value: JSON.stringify(e) });

/**
 * The source connector for a self-hosted Unleash: backfills `events` from the first row, follows it, and
 * carries SDK usage. Each read runs in one snapshot; rows are produced in the order they became visible, and
 * gaps (ids not visible yet below the high-water mark) are tracked until filled or provably abandoned
 * (gaps.ts). The position is stored after Kafka acknowledged what it covers.
 */
export class DbConnector {
  private readonly o: Required<Omit<DbConnectorOptions, 'metrics' | 'signal' | 'onPoll'>> &
    Pick<DbConnectorOptions, 'metrics' | 'signal' | 'onPoll'>;
  private status: SourceStatus = {
    mode: 'database',
    lastPollAt: null,
    newestId: 0,
    newestAt: null,
    lagRows: 0,
    lagSeconds: 0,
    openGaps: 0,
    rowsRead: 0,
    produced: 0,
    sdkProduced: 0,
    state: 'backfilling',
  };
  private lastAt: number | null = null;
  ready = false;

  constructor(opts: DbConnectorOptions) {
    const defined = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
    this.o = {
      batchSize: 5000,
      pollMs: 100,
      sdkPollMs: 5000,
      bucketGraceMs: 120_000,
      gap: DEFAULT_GAP_OPTIONS,
      sdkOnly: false,
      ...(defined as DbConnectorOptions),
    };
  }

  get currentStatus(): SourceStatus {
    return this.status;
  }

  /** Runs until done (`once`) or stopped; throws SourceError for what retrying cannot fix. */
  async run(): Promise<RunSummary> {
    const { log, signal } = this.o;
    const store = await connectWithRetry(
      'flaglens database',
      () => PositionStore.connect(this.o.flaglensUrl),
      log,
      signal,
    );
    const producer = this.o.kafka.producer({ allowAutoTopicCreation: false, idempotent: false });
    try {
      await connectWithRetry('Kafka', () => producer.connect(), log, signal, true);
      const origin = originOf(this.o.unleashUrl);
      const stored = await store.load(this.o.source);
      if (stored && stored.origin !== origin)
        throw new SourceError(
          'position-mismatch',
          `the stored position "${this.o.source}" belongs to ${stored.origin}, not ${origin}: ` +
            `use --source-name for another Unleash`,
        );
      const position: SourcePosition = stored?.position ?? { hwm: 0, gaps: [] };
      if (stored)
        log('info', `resuming ${this.o.source} at id ${position.hwm} (${position.gaps.length} open gap(s))`);
      return await this.loop(store, producer, origin, position);
    } finally {
      await producer.disconnect().catch(() => undefined);
      await store.close();
      if (signal?.aborted) log('info', 'stopped');
    }
  }

  private async loop(
    store: PositionStore,
    producer: Producer,
    origin: string,
    start: SourcePosition,
  ): Promise<RunSummary> {
    const { log, signal, once, metrics } = this.o;
    const label = { source: this.o.source };
    let position = start;
    let db: UnleashDb | null = null;
    let sdk: SdkReader | null = null;
    let target: number | null = null; // once: Unleash's newest id at the first read
    let sdkDueAt = 0;
    let sdkDone = false;
    let savedAt = 0;
    const send = async (messages: Message[]) => {
      for (let i = 0; i < messages.length; i += 10_000)
        await producer.send({ topic: this.o.topic, messages: messages.slice(i, i + 10_000), acks: -1 });
    };
    const save = async () => {
      this.status.openGaps = openGapIds(position.gaps);
      await store.save(this.o.source, origin, position, this.status);
      savedAt = Date.now();
    };
    let failures = 0;
    let prefetch: Promise<PollResult> | null = null;
    while (!signal?.aborted) {
      try {
        if (!db) {
          db = await UnleashDb.connect(this.o.unleashUrl);
          const { sdkTables, missingSdk } = await db.check();
          if (missingSdk.length > 0)
            log(
              'warn',
              `SDK usage: cannot read ${missingSdk.join(', ')} (missing or no SELECT grant); skipped`,
            );
          sdk = new SdkReader(db, new Set(sdkTables), this.o.bucketGraceMs);
          if (failures > 0) log('info', 'connected to Unleash again');
          failures = 0;
        }
        const read = this.o.sdkOnly
          ? NO_EVENTS
          : await (prefetch ?? db.poll(position.hwm, position.gaps, this.o.batchSize));
        prefetch = null;
        const now = Date.now();
        if (target === null) target = read.newestId;
        const r = this.o.sdkOnly
          ? { position, filled: 0, abandoned: [], timedOut: [] }
          : step(
              position,
              read.gapRows.map((x) => x.id),
              read.newRows.map((x) => x.id),
              read.snapshot,
              now,
              this.o.gap,
            );
        for (const g of r.timedOut)
          log(
            'warn',
            `gap ${g.lo}..${g.hi} closed after ${Math.round(this.o.gap.maxWaitMs / 1000)} s without proof (a transaction stayed open)`,
          );
        metrics?.gapsClosed.inc({ ...label, reason: 'filled' }, r.filled);
        metrics?.gapsClosed.inc({ ...label, reason: 'abandoned' }, r.abandoned.length);
        metrics?.gapsClosed.inc({ ...label, reason: 'timeout' }, r.timedOut.length);
        const rows = [...read.gapRows, ...read.newRows].sort((a, b) => a.id - b.id);
        if (read.newRows.length === this.o.batchSize) {
          // backfilling: the next read runs while this batch is sent (sends stay one at a time, in order)
          const next = db.poll(r.position.hwm, r.position.gaps, this.o.batchSize);
          next.catch(() => undefined); // awaited at the top of the loop; an error surfaces there
          prefetch = next;
        }
        if (read.release !== null && read.release !== this.status.release) {
          log('info', `Unleash release ${read.release} (from its migrations)`);
          this.status.release = read.release;
        }
        if (rows.length > 0) {
          await send(rows.map((x) => rowMessage(x, read.release)));
          this.status.produced += rows.length;
          this.status.rowsRead += rows.length;
          metrics?.rowsRead.inc(label, rows.length);
          metrics?.produced.inc({ ...label, kind: 'event' }, rows.length);
          const lastNew = read.newRows[read.newRows.length - 1];
          if (lastNew) this.lastAt = lastNew.at;
        }
        const changed =
          rows.length > 0 ||
          r.abandoned.length > 0 ||
          r.timedOut.length > 0 ||
          JSON.stringify(r.position.gaps) !== JSON.stringify(position.gaps);
        position = r.position;
        const caughtUp = read.newRows.length < this.o.batchSize;
        this.updateStatus(read.newestId, read.newestAt, position, caughtUp);

        // SDK usage: when due (and in --once, once the events are copied)
        if (sdk && Date.now() >= sdkDueAt && (!once || (caughtUp && !sdkDone))) {
          const s = await sdk.read(position.sdk);
          if (s.events.length > 0) {
            await send(s.events.map(sdkMessage));
            this.status.sdkProduced += s.events.length;
            metrics?.produced.inc({ ...label, kind: 'sdk' }, s.events.length);
          }
          s.commit();
          const sdkChanged = JSON.stringify(s.position) !== JSON.stringify(position.sdk);
          position = { ...position, sdk: s.position };
          if (sdkChanged || s.events.length > 0) await save();
          sdkDueAt = Date.now() + this.o.sdkPollMs;
          sdkDone = true;
        }
        if (changed || Date.now() - savedAt >= 1000) await save();
        this.ready = true;
        this.o.onPoll?.(this.status);

        if (
          once &&
          target !== null &&
          position.hwm >= target &&
          sdkDone &&
          !position.gaps.some((g) => g.lo <= target!)
        ) {
          this.status.state = 'done';
          await save();
          log(
            'info',
            `copied up to id ${position.hwm}: ${this.status.produced} event(s), ${this.status.sdkProduced} SDK event(s)`,
          );
          break;
        }
        if (caughtUp) await sleep(position.gaps.length > 0 && once ? 100 : this.o.pollMs, signal);
      } catch (e) {
        if (e instanceof SourceError) throw e;
        const code = (e as { code?: unknown }).code;
        if (code === '42501')
          throw new SourceError(
            'no-grant',
            `${oneLine(e)}: grant SELECT on Unleash's tables (docs/source-connector.md)`,
          );
        if (code === '42P01') throw new SourceError('not-unleash', oneLine(e));
        prefetch = null;
        failures++;
        this.ready = false;
        metrics?.errors.inc(label);
        const delay = backoffMs(failures);
        this.status.state = 'retrying';
        this.status.message = oneLine(e);
        const where = isRetryableSourceError(e) || !db ? 'Unleash database unreachable' : 'read failed';
        log('warn', `${where}: ${oneLine(e)}; retrying in ${(delay / 1000).toFixed(1)} s`);
        await save().catch(() => undefined); // `status` shows the retrying state and its reason
        await db?.close();
        db = null;
        await sleep(delay, signal);
      }
    }
    await db?.close();
    return { produced: this.status.produced, sdkProduced: this.status.sdkProduced, position };
  }

  private updateStatus(
    newestId: number,
    newestAt: number | null,
    p: SourcePosition,
    caughtUp: boolean,
  ): void {
    const s = this.status;
    const label = { source: this.o.source };
    s.lastPollAt = new Date().toISOString();
    s.newestId = newestId;
    s.newestAt = newestAt === null ? null : new Date(newestAt * 1000).toISOString();
    s.lagRows = Math.max(0, newestId - p.hwm);
    s.lagSeconds =
      s.lagRows === 0 || newestAt === null || this.lastAt === null ? 0 : Math.max(0, newestAt - this.lastAt);
    s.openGaps = openGapIds(p.gaps);
    s.state = caughtUp && s.lagRows === 0 ? 'following' : 'backfilling';
    delete s.message;
    const m = this.o.metrics;
    m?.position.set(label, p.hwm);
    m?.openGaps.set(label, s.openGaps);
    m?.lagRows.set(label, s.lagRows);
    m?.lagSeconds.set(label, s.lagSeconds);
    m?.lastPoll.set(label, Date.now() / 1000);
  }
}
