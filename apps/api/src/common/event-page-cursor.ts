import type { EventPageCursor } from '@flaglens/projections';

/** A page cursor as the clients carry it (the console's flag pages, the diff's events): opaque (base64url of its two numbers). */
export function encodeCursor(c: EventPageCursor): string {
  return Buffer.from(JSON.stringify([c.at, c.id]), 'utf8').toString('base64url');
}

/** A cursor from the client; null when absent, undefined when malformed. */
export function decodeCursor(v: unknown): EventPageCursor | null | undefined {
  if (v === undefined || v === '') return null;
  if (typeof v !== 'string' || v.length > 200) return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(v, 'base64url').toString('utf8')) as unknown[];
    const digits = (v: unknown): v is string => typeof v === 'string' && /^-?\d{1,17}$/.test(v);
    if (!digits(at) || !digits(id) || id.startsWith('-')) return undefined;
    return { at, id };
  } catch {
    return undefined;
  }
}
