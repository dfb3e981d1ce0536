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

export interface Skip {
  eventId: number;
  reason: string;
}
