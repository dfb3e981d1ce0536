import type { FlagEvent } from '@flaglens/contract';

/** Helpers shared by the projections' pure update logic. */

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
export const data = (e: FlagEvent): Record<string, unknown> =>
  e.data && typeof e.data === 'object' && !Array.isArray(e.data) ? e.data : {};
export const preData = (e: FlagEvent): Record<string, unknown> =>
  e.preData && typeof e.preData === 'object' && !Array.isArray(e.preData) ? e.preData : {};
/** An integer (or numeric string) or undefined. */
export const int = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
};

/** An integer that fits a Postgres `integer` column (32-bit), or undefined: a larger one is no value. */
export const int32 = (v: unknown): number | undefined => {
  const n = int(v);
  return n !== undefined && n >= -2_147_483_648 && n <= 2_147_483_647 ? n : undefined;
};

export interface Skip {
  eventId: number;
  reason: string;
}

/** Shaped like `toISOString()` (24 characters, `T`, `Z`): its first ten characters are its UTC day. */
const isUtcNormalForm = (iso: string): boolean =>
  iso.length === 24 && iso.charCodeAt(23) === 90 /* Z */ && iso.charCodeAt(10) === 84; /* T */

/** The UTC day (`YYYY-MM-DD`) of an instant; an instant already in UTC normal form (`…Z`) is just cut. */
export const utcDay = (iso: string): string =>
  isUtcNormalForm(iso) ? iso.slice(0, 10) : new Date(iso).toISOString().slice(0, 10);

/**
 * `utcDay` for a run of instants: one that falls on the day of the one before gives that day's string again,
 * with nothing cut (a batch's events mostly share a few days).
 */
export function utcDays(): (iso: string) => string {
  let last = '';
  return (iso) => (last !== '' && isUtcNormalForm(iso) && iso.startsWith(last) ? last : (last = utcDay(iso)));
}
