import { SourceError, isRetryableSourceError, oneLine } from './errors';

export type SourceLog = (level: 'info' | 'warn' | 'error', message: string) => void;

/** Waits `ms`, or less when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The wait before retry `attempt` (1-based): 0.5 s doubling up to 30 s. */
export const backoffMs = (attempt: number): number => Math.min(30_000, 500 * 2 ** Math.min(attempt - 1, 6));

/**
 * Connects with retries: one line per failure, backoff up to 30 s, until it works or the run stops. What
 * retrying cannot fix (a SourceError, or a failure that is not about the connection) is thrown at once.
 */
export async function connectWithRetry<T>(
  what: string,
  fn: () => Promise<T>,
  log: SourceLog,
  signal?: AbortSignal,
  retryAny = false,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof SourceError || signal?.aborted) throw e;
      if (!retryAny && !isRetryableSourceError(e)) throw new Error(`${what}: ${oneLine(e)}`);
      const delay = backoffMs(attempt);
      log('warn', `${what} unreachable: ${oneLine(e)}; retrying in ${(delay / 1000).toFixed(1)} s`);
      await sleep(delay, signal);
    }
  }
}
