import type { Kafka, Message } from 'kafkajs';
import { eventKey } from '@flaglens/contract';
import { PositionStore, type SourcePosition, type SourceStatus } from './position-store';
import { SourceError, oneLine } from './errors';
import type { SourceMetrics } from './source-metrics';
import { RELEASE_HEADER, type RunSummary } from './db-connector';
import { backoffMs, connectWithRetry, sleep, type SourceLog } from './retry';

export interface ApiConnectorOptions {
  source: string;
  /** Unleash's base URL (what precedes `/api/admin`). */
  apiUrl: string;
  /** An admin API token (or a personal access token of an admin). */
  token: string;
  flaglensUrl: string;
  kafka: Kafka;
  topic: string;
  once: boolean;
  /** Between polls of the newest events when caught up (ms). */
  pollMs?: number;
  metrics?: SourceMetrics;
  log: SourceLog;
  signal?: AbortSignal;
}

/** Events per page of `GET /api/admin/search/events` (its maximum). */
const PAGE = 1000;
/** Ids remembered below the high-water mark, to tell a late row of the newest page from one already sent. */
const RECENT = 20_000;

type ApiEvent = Record<string, unknown> & { id: number; createdAt: string };

/**
 * The wire shape of the event list (the search adds `label` and `summary`, which are dropped); 7+'s
 * `groupType` and `groupId` after the others, when set.
 */
export function wireOf(e: ApiEvent): string {
  const wire: Record<string, unknown> = {
    id: e.id,
    type: e.type,
    createdBy: e.createdBy,
    createdAt: e.createdAt,
    createdByUserId: e.createdByUserId ?? null,
    data: e.data ?? null,
    preData: e.preData ?? null,
    tags: e.tags ?? [],
    featureName: e.featureName ?? null,
    project: e.project ?? null,
    environment: e.environment ?? null,
  };
  if (typeof e.groupType === 'string' && e.groupType !== '') wire.groupType = e.groupType;
  if (typeof e.groupId === 'string' && e.groupId !== '') wire.groupId = e.groupId;
  return JSON.stringify(wire);
}

/**
 * Whether an upgrade from release `before` to `now` inserted rows that the newest pages never show: 7.0's
 * migration `20250708173000-amend-users-created-events` adds a `user-created` row per user with the user's old
 * `created_at` (the search lists by `createdAt`). The backfill reads every day again; the projector stores
 * each id once.
 */
export function rereadAfterUpgrade(before: string | undefined, now: string): boolean {
  return before !== undefined && Number(before) < 7 && Number(now) >= 7;
}

/** The release line (major version) of an Unleash version such as `8.2.0`, or null. */
export function releaseOf(version: unknown): string | null {
  const m = typeof version === 'string' ? /^(\d+)\./.exec(version.trim()) : null;
  return m ? String(Number(m[1])) : null;
}

const day = (t: number) => new Date(t).toISOString().slice(0, 10);

/**
 * The source connector for an Unleash without database access (hosted): reads its event search API with an
 * admin token. Backfill goes day by day (`from`/`to` of `GET /api/admin/search/events`, paged by 1,000), so
 * rows that arrive meanwhile cannot shift a page past unread ones; then it polls the newest page. It cannot
 * see SDK usage (docs/source-connector.md).
 */
export class ApiConnector {
  private readonly base: string;
  private status: SourceStatus = {
    mode: 'api',
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
  ready = false;

  constructor(private readonly o: ApiConnectorOptions) {
    this.base = o.apiUrl.replace(/\/+$/, '');
  }

  get currentStatus(): SourceStatus {
    return this.status;
  }

  /** GET a search page; 401/403 is a refused token (exit 2); network errors are retried by the caller. */
  private async search(
    params: Record<string, string | number>,
  ): Promise<{ events: ApiEvent[]; total: number }> {
    const q = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]));
    const res = await fetch(`${this.base}/api/admin/search/events?${q}`, {
      headers: { Authorization: this.o.token, Accept: 'application/json' },
      signal: AbortSignal.timeout(30_000),
    });
    if (res.status === 401 || res.status === 403)
      throw new SourceError(
        'refused-token',
        `Unleash refused the token (HTTP ${res.status}): an admin API token is needed`,
      );
    if (res.status === 404)
      throw new SourceError(
        'bad-api',
        `GET /api/admin/search/events answered 404: not an Unleash 6.x admin API`,
      );
    if (!res.ok) throw Object.assign(new Error(`Unleash answered HTTP ${res.status}`), { retry: true });
    const body = (await res.json()) as { events?: ApiEvent[]; total?: number };
    if (!Array.isArray(body.events))
      throw new SourceError('bad-api', 'the event search answered without `events`');
    return { events: body.events, total: Number(body.total ?? body.events.length) };
  }

  /** Unleash's version (`GET /api/admin/ui-config`), as a release line; null when it cannot be read. */
  private async release(): Promise<string | null> {
    try {
      const res = await fetch(`${this.base}/api/admin/ui-config`, {
        headers: { Authorization: this.o.token, Accept: 'application/json' },
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) return null;
      return releaseOf(((await res.json()) as { version?: unknown }).version);
    } catch {
      return null;
    }
  }

  async run(): Promise<RunSummary> {
    const { log, signal, metrics } = this.o;
    const label = { source: this.o.source };
    const origin = new URL(this.base).origin + new URL(this.base).pathname.replace(/\/$/, '');
    const store = await connectWithRetry(
      'flaglens database',
      () => PositionStore.connect(this.o.flaglensUrl),
      log,
      signal,
    );
    const producer = this.o.kafka.producer({ allowAutoTopicCreation: false, idempotent: false });
    try {
      await connectWithRetry('Kafka', () => producer.connect(), log, signal, true);
      const stored = await store.load(this.o.source);
      if (stored && stored.origin !== origin)
        throw new SourceError(
          'position-mismatch',
          `the stored position "${this.o.source}" belongs to ${stored.origin}, not ${origin}: use --source-name`,
        );
      const position: SourcePosition = stored?.position ?? { hwm: 0, gaps: [], recent: [] };
      const recent = new Set(position.recent ?? []);
      const save = async () => {
        position.recent = [...recent].sort((a, b) => a - b).slice(-RECENT);
        await store.save(this.o.source, origin, position, this.status);
      };
      const produce = async (events: ApiEvent[]) => {
        const fresh = events.filter((e) => !recent.has(e.id)).sort((a, b) => a.id - b.id);
        this.status.rowsRead += events.length;
        metrics?.rowsRead.inc(label, events.length);
        if (fresh.length === 0) return 0;
        const release = this.status.release ?? null;
        const messages: Message[] = fresh.map((e) => ({
          key: eventKey(e as never),
          value: wireOf(e),
          ...(release === null ? {} : { headers: { [RELEASE_HEADER]: release } }),
        }));
        await producer.send({ topic: this.o.topic, messages, acks: -1 });
        for (const e of fresh) recent.add(e.id);
        position.hwm = Math.max(position.hwm, ...fresh.map((e) => e.id));
        this.status.produced += fresh.length;
        metrics?.produced.inc({ ...label, kind: 'event' }, fresh.length);
        return fresh.length;
      };

      let failures = 0;
      let releaseDueAt = 0;
      let backfilled = stored?.position.day === 'done';
      while (!signal?.aborted) {
        try {
          // the release: at the start, then once a minute (an Unleash upgraded in place restarts)
          const release = Date.now() >= releaseDueAt ? await this.release() : null;
          if (release !== null) releaseDueAt = Date.now() + 60_000;
          if (release !== null && release !== this.status.release) {
            log('info', `Unleash release ${release} (from its ui-config)`);
            this.status.release = release;
          }
          if (release !== null && rereadAfterUpgrade(position.release, release)) {
            // 7.0's upgrade inserted user-created rows with old dates: never on the newest pages, read again
            log('info', `Unleash went from ${position.release} to ${release}: reading every day again`);
            backfilled = false;
            delete position.day;
          }
          if (release !== null) position.release = release;
          const head = await this.search({ limit: 1, offset: 0 });
          const newest = head.events[0];
          this.status.newestId = newest?.id ?? 0;
          this.status.newestAt = newest?.createdAt ?? null;
          if (!backfilled) {
            // day by day from the oldest event's day (one day earlier: the server's time zone draws the days)
            const oldest =
              head.total > 0
                ? (await this.search({ limit: 1, offset: head.total - 1 })).events[0]
                : undefined;
            const first =
              position.day ?? (oldest ? day(Date.parse(oldest.createdAt) - 86_400_000) : day(Date.now()));
            const last = day(Date.now() + 86_400_000);
            for (let d = first; d <= last && !signal?.aborted; d = day(Date.parse(d) + 86_400_000)) {
              const all: ApiEvent[] = [];
              for (let offset = 0; ; offset += PAGE) {
                const page = await this.search({ from: `IS:${d}`, to: `IS:${d}`, limit: PAGE, offset });
                all.push(...page.events);
                if (page.events.length < PAGE) break;
              }
              await produce(all);
              position.day = d;
              this.status.lagRows = Math.max(0, this.status.newestId - position.hwm);
              await save();
            }
            position.day = 'done';
            backfilled = true;
          }
          // follow: the newest pages until one holds only ids already sent
          let sent = 0;
          for (let offset = 0; ; offset += PAGE) {
            const page = await this.search({ limit: PAGE, offset });
            const n = await produce(page.events);
            sent += n;
            if (page.events.length < PAGE || n === 0) break;
          }
          this.status.lastPollAt = new Date().toISOString();
          this.status.lagRows = Math.max(0, this.status.newestId - position.hwm);
          this.status.lagSeconds = 0;
          this.status.state = 'following';
          metrics?.position.set(label, position.hwm);
          metrics?.lagRows.set(label, this.status.lagRows);
          metrics?.lagSeconds.set(label, 0);
          metrics?.lastPoll.set(label, Date.now() / 1000);
          if (failures > 0) log('info', 'Unleash reachable again');
          failures = 0;
          this.ready = true;
          await save();
          if (this.o.once) {
            this.status.state = 'done';
            await save();
            log('info', `copied up to id ${position.hwm}: ${this.status.produced} event(s)`);
            break;
          }
          if (sent === 0) await sleep(this.o.pollMs ?? 1000, signal);
        } catch (e) {
          if (e instanceof SourceError) throw e;
          failures++;
          this.ready = false;
          metrics?.errors.inc(label);
          const delay = backoffMs(failures);
          this.status.state = 'retrying';
          log('warn', `Unleash API unreachable: ${oneLine(e)}; retrying in ${(delay / 1000).toFixed(1)} s`);
          await sleep(delay, signal);
        }
      }
      return { produced: this.status.produced, sdkProduced: 0, position };
    } finally {
      await producer.disconnect().catch(() => undefined);
      await store.close();
    }
  }
}
