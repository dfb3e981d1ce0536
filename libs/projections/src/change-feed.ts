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
  /**
   * Projects whose overview may have changed; `'*'` means any project's. A payload without the field (an
   * older projector) and any `flags: '*'` read as `'*'`.
   */
  projects: string[] | '*';
}

export function encodeChanges(flags: Iterable<string>, projects: Iterable<string> | '*' = '*'): string {
  const payload = JSON.stringify({
    flags: [...new Set(flags)],
    projects: projects === '*' ? '*' : [...new Set(projects)],
  });
  return Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES
    ? JSON.stringify({ flags: '*', projects: '*' })
    : payload;
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((f) => typeof f === 'string');

export function decodeChanges(payload: string | undefined): Changes {
  try {
    const parsed = JSON.parse(payload ?? '') as { flags?: unknown; projects?: unknown };
    if (strings(parsed.flags))
      return { flags: parsed.flags, projects: strings(parsed.projects) ? parsed.projects : '*' };
  } catch {
    // fall through: an unreadable notice invalidates everything
  }
  return { flags: '*', projects: '*' };
}
