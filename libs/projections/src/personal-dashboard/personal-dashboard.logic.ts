import { createHash } from 'node:crypto';

/**
 * Unleash 8.2.0's personal dashboard, the parts computed in Node. Pure. The rules, field by field:
 * docs/deviations.md, "Personal dashboard".
 */

/**
 * Unleash's avatar address for a user: the gravatar of the first of email, username and id; lower-cased and
 * trimmed unless it starts with `@` (Unleash's `indexOf('@')` test). A missing value hashes as `undefined`.
 */
export function avatarUrl(u: {
  email?: string | null;
  username?: string | null;
  id?: number | null;
}): string {
  let ident = u.email || u.username || String(u.id ?? undefined);
  ident = ident.indexOf('@') ? ident.toLowerCase().trim() : ident.trim();
  return `https://gravatar.com/avatar/${createHash('sha256').update(ident).digest('hex')}?s=42&d=retro&r=g`;
}

/** A user who owns a project, as the dashboards list them. */
export interface UserOwner {
  ownerType: 'user';
  name: string;
  email: string | null;
  imageUrl: string;
}

/** An Owner row of a user: its project, the user, and when the row was made. */
export interface OwnerRow {
  project: string;
  id: number;
  name: string | null;
  username: string | null;
  email: string | null;
}

export const userOwner = (r: OwnerRow): UserOwner => ({
  ownerType: 'user',
  name: (r.name || r.username || r.email) as string,
  email: r.email,
  imageUrl: avatarUrl(r),
});

/**
 * The personal dashboard's `projectOwners`: every project's Owner users (`rows` in the order their rows were
 * made), gathered per project in the order each project's first owner appears, then flattened and kept once per
 * `email || name`, at its first place, as Unleash's objects do (keys that are array indexes first).
 */
export function projectOwners(rows: readonly OwnerRow[]): UserOwner[] {
  const byProject: Record<string, UserOwner[]> = {};
  for (const r of rows) (byProject[r.project] ??= []).push(userOwner(r));
  const once: Record<string, UserOwner> = {};
  for (const o of Object.values(byProject).flat()) once[o.email || o.name] = o;
  return Object.values(once);
}

/** The project details' `insights`, Unleash's keys in its order; an archived project: zeros. */
export function detailsInsights(
  flags: { total: number; stale: number; potentiallyStale: number; health: number } | null,
): Record<string, number | null> {
  const total = flags?.total ?? 0;
  const stale = flags?.stale ?? 0;
  const potentiallyStale = flags?.potentiallyStale ?? 0;
  const health = flags?.health || 0;
  return {
    avgHealthCurrentWindow: null,
    avgHealthPastWindow: null,
    totalFlags: total,
    potentiallyStaleFlags: potentiallyStale,
    staleFlags: stale,
    activeFlags: total - stale - potentiallyStale,
    technicalDebt: flags ? 100 - health : 0,
    health,
  };
}
