import type { InstanceInsights } from '@flaglens/projections';

type Kind = 'number' | 'string' | 'date-time' | 'counts';
const N: Kind = 'number';
const S: Kind = 'string';
const D: Kind = 'date-time';
/** an object of numbers (counts by a name) */
const C: Kind = 'counts';

/** Required fields of every element of each array (api-spec 2.13); optional ones are checked if present. */
export const INSIGHTS_SCHEMA: Record<
  keyof InstanceInsights,
  { req: Record<string, Kind>; opt?: Record<string, Kind> }
> = {
  userTrends: { req: { date: D, total: N, active: N, inactive: N } },
  flagTrends: { req: { date: D, total: N, active: N, stale: N, potentiallyStale: N } },
  projectFlagTrends: {
    req: { week: S, project: S, health: N, date: D, total: N, active: N, stale: N, potentiallyStale: N },
    opt: { technicalDebt: N, timeToProduction: N, users: N },
  },
  metricsSummaryTrends: {
    req: {
      week: S,
      date: D,
      project: S,
      totalRequests: N,
      totalYes: N,
      totalNo: N,
      totalApps: N,
      totalFlags: N,
      totalEnvironments: N,
    },
  },
  environmentTypeTrends: { req: { date: D, week: S, environmentType: S, totalUpdates: N } },
  // Unleash 7+
  lifecycleTrends: { req: { week: S, date: D, newProductionFlags: N }, opt: { project: S } },
  creationArchiveTrends: { req: { week: S, date: D, project: S, createdFlags: C, archivedFlags: N } },
};

const END_OF_DAY = /^\d{4}-\d{2}-\d{2}T23:59:59\.999Z$/;

/** The violations of api-spec 2.13 in a body (empty when it conforms). */
export function validateInsights(body: unknown): string[] {
  const out: string[] = [];
  const b = body as Record<string, unknown>;
  for (const [name, { req, opt }] of Object.entries(INSIGHTS_SCHEMA)) {
    const arr = b?.[name];
    if (!Array.isArray(arr)) {
      out.push(`${name} missing`);
      continue;
    }
    arr.forEach((el: Record<string, unknown>, i) => {
      const check = (f: string, k: Kind, required: boolean) => {
        const v = el[f];
        if (v === undefined) return required && out.push(`${name}[${i}].${f} missing`);
        if (k === N && (typeof v !== 'number' || !Number.isFinite(v)))
          out.push(`${name}[${i}].${f} not a number`);
        if (k === S && typeof v !== 'string') out.push(`${name}[${i}].${f} not a string`);
        if (
          k === C &&
          (typeof v !== 'object' || v === null || Object.values(v).some((n) => typeof n !== 'number'))
        )
          out.push(`${name}[${i}].${f} not counts`);
        if (k === D && (typeof v !== 'string' || !END_OF_DAY.test(v)))
          out.push(`${name}[${i}].${f} not end of day`);
      };
      for (const [f, k] of Object.entries(req)) check(f, k, true);
      for (const [f, k] of Object.entries(opt ?? {})) check(f, k, false);
      if (name === 'projectFlagTrends' && ((el.health as number) < 0 || (el.health as number) > 100))
        out.push(`${name}[${i}].health out of range`);
      if (
        name === 'projectFlagTrends' &&
        el.technicalDebt !== undefined &&
        el.technicalDebt !== 100 - (el.health as number)
      )
        out.push(`${name}[${i}].technicalDebt is not 100 − health`);
    });
  }
  return out;
}
