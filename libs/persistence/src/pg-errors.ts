/**
 * How a failure inside a batch's transaction is handled (docs/architecture.md, "Exactly once"):
 * - `transient`: the database was briefly unable to do the work: retried with backoff, never skipped. A short
 *   allow-list: connection loss, serialization failures, deadlocks, lock and statement timeouts, shutdowns,
 *   and exhausted server resources.
 * - `systemic`: the database or our schema is wrong, whatever the event (an undefined table or function, a
 *   missing privilege, an internal error): also retried with backoff, the partition reported stuck, because
 *   dead-lettering every event during a botched migration would lose the log's meaning.
 * - `data`: anything else is the event's own doing, e.g. a value the database refuses (class 22, 23, 54
 *   such as an index row too large) or an exception thrown by projection code (RangeError, TypeError). The
 *   event is isolated and dead-lettered with the reason; its neighbours are applied.
 */
export type FailureKind = 'transient' | 'systemic' | 'data';

/** SQLSTATEs retried as transient: serialization failure, deadlock, lock not available, query canceled (statement timeout). */
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '55P03', '57014']);
/** Classes retried as transient: connection exception, insufficient resources, operator intervention (shutdowns). */
const TRANSIENT_SQLSTATE_CLASSES = ['08', '53', '57'];
/**
 * Classes that say the database or the schema is wrong rather than the event: syntax error or access rule
 * violation (undefined table/column/function, insufficient privilege), invalid catalog or schema name,
 * feature not supported, invalid transaction state, savepoint misuse, system and internal errors.
 */
const SYSTEMIC_SQLSTATE_CLASSES = ['42', '3D', '3F', '0A', '25', '3B', '58', 'XX'];
const TRANSIENT_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const TRANSIENT_MESSAGE =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed|the database system is (starting up|shutting down)|Query read timeout/i;

const SQLSTATE = /^[0-9A-Z]{5}$/;

export function classifyFailure(e: unknown): FailureKind {
  if (!e || typeof e !== 'object') return 'data';
  const err = e as { code?: unknown; message?: unknown; driverError?: unknown };
  if (err.driverError && err.driverError !== e) {
    const inner = classifyFailure(err.driverError);
    if (inner !== 'data') return inner;
  }
  const code = typeof err.code === 'string' ? err.code : '';
  if (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_NODE_CODES.has(code)) return 'transient';
  if (SQLSTATE.test(code)) {
    if (TRANSIENT_SQLSTATE_CLASSES.some((c) => code.startsWith(c))) return 'transient';
    if (SYSTEMIC_SQLSTATE_CLASSES.some((c) => code.startsWith(c))) return 'systemic';
    return 'data';
  }
  const msg = typeof err.message === 'string' ? err.message : '';
  return TRANSIENT_MESSAGE.test(msg) ? 'transient' : 'data';
}

/** A failure worth retrying as is (see `classifyFailure`). */
export function isTransientPgError(e: unknown): boolean {
  return classifyFailure(e) === 'transient';
}

/** Why an event failed, for its dead letter: the SQLSTATE and message, or the exception's name and message. */
export function describeFailure(e: unknown): string {
  if (!e || typeof e !== 'object') return String(e);
  const err = e as { code?: unknown; message?: unknown; name?: unknown };
  const msg = typeof err.message === 'string' ? err.message : String(e);
  if (typeof err.code === 'string' && SQLSTATE.test(err.code))
    return `database refused the event (SQLSTATE ${err.code}): ${msg}`;
  return `${typeof err.name === 'string' ? err.name : 'Error'} in projection code: ${msg}`;
}

export interface RetryOptions {
  /** First delay in ms; doubles each attempt up to maxDelayMs. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Called before each wait; may do work such as a Kafka heartbeat. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void | Promise<void>;
  /** Stops retrying (rethrows) once this returns true, e.g. on shutdown. */
  shouldStop?: () => boolean;
  isTransient?: (e: unknown) => boolean;
}

/** Runs `fn` until it succeeds or fails with a non-transient error. */
export async function retryTransient<T>(fn: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const initial = opts.initialDelayMs ?? 100;
  const max = opts.maxDelayMs ?? 5000;
  const transient = opts.isTransient ?? isTransientPgError;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!transient(e) || opts.shouldStop?.()) throw e;
      const delay = Math.min(max, initial * 2 ** (attempt - 1));
      await opts.onRetry?.(e, attempt, delay);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
