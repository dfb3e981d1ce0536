import type { FlagEvent } from '@flaglens/contract';

/** An event's fields read defensively: the projections' pure update logic reads `data` and `preData` with these. */

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
