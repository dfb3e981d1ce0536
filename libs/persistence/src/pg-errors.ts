/**
 * Classifies Postgres failures: transient ones are retried with backoff (never skipped),
 * everything else is fatal for the batch and stops the projector loudly.
 */
const TRANSIENT_SQLSTATE_CLASSES = ['08', '53', '57P'];
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '55P03', '57014']);
const TRANSIENT_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

export function isTransientPgError(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false;
  const err = e as { code?: unknown; message?: unknown; driverError?: unknown };
  if (err.driverError && err.driverError !== e && isTransientPgError(err.driverError)) return true;
  const code = typeof err.code === 'string' ? err.code : '';
  if (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_NODE_CODES.has(code)) return true;
  if (TRANSIENT_SQLSTATE_CLASSES.some((c) => code.startsWith(c))) return true;
  const msg = typeof err.message === 'string' ? err.message : '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)/i.test(
    msg,
  );
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
