import { isTransientPgError } from '@flaglens/persistence';

/** A problem with the source that retrying cannot fix: the command exits 2 with `message` (no stack). */
export class SourceError extends Error {
  readonly exitCode = 2;
  constructor(
    readonly code:
      | 'not-unleash'
      | 'no-grant'
      | 'refused-token'
      | 'bad-api'
      | 'position-mismatch'
      | 'no-topic'
      | 'partitions',
    message: string,
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

/** Connection-level failures of a source (worth a retry with backoff): Postgres's transient ones, and auth. */
export function isRetryableSourceError(e: unknown): boolean {
  if (e instanceof SourceError) return false;
  if (isTransientPgError(e)) return true;
  const code = (e as { code?: unknown })?.code;
  // 28xxx: invalid authorization (a password being rotated), 3D000: database does not exist yet
  return typeof code === 'string' && (code.startsWith('28') || code === '3D000');
}

/**
 * One line saying what went wrong, without stack, credentials or SQL text. pg's messages never carry the
 * password; the URL is never part of them.
 */
export function oneLine(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown; errors?: unknown };
  let msg = typeof err?.message === 'string' && err.message ? err.message : String(e);
  // Node's AggregateError (several addresses tried) has an empty message: take the first cause
  if ((!msg || msg === 'AggregateError') && Array.isArray(err?.errors) && err.errors.length > 0)
    msg = oneLine(err.errors[0]);
  const code = typeof err?.code === 'string' ? ` (${err.code})` : '';
  return `${msg.split('\n')[0]}${code && !msg.includes(String(err.code)) ? code : ''}`;
}
