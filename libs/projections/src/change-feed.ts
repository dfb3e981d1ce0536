/**
 * The change feed: inside each batch's transaction the projector NOTIFYs what it changed, so readers can
 * drop cached answers exactly when the data behind them commits (NOTIFY is delivered on COMMIT).
 */
export const CHANGE_CHANNEL = 'flaglens_changes';

/** Postgres limits a NOTIFY payload to 8000 bytes; past this, everything is invalidated. */
const MAX_PAYLOAD_BYTES = 7000;

export interface Changes {
  /** Feature names whose event lists changed; `'*'` means anything may have changed. */
  flags: string[] | '*';
}

export function encodeChanges(flags: Iterable<string>): string {
  const list = [...new Set(flags)];
  const payload = JSON.stringify({ flags: list });
  return Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES ? JSON.stringify({ flags: '*' }) : payload;
}

export function decodeChanges(payload: string | undefined): Changes {
  try {
    const parsed = JSON.parse(payload ?? '') as { flags?: unknown };
    if (Array.isArray(parsed.flags) && parsed.flags.every((f) => typeof f === 'string'))
      return { flags: parsed.flags };
  } catch {
    // fall through: an unreadable notice invalidates everything
  }
  return { flags: '*' };
}
