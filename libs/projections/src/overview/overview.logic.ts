import type { UnleashRelease } from '@flaglens/contract';

/**
 * The read-time rules of the overview (semantics §3.3, §3.4) as pure functions. The read model applies the
 * same rules in SQL; `overview.int-spec.ts` checks that both agree on a generated history.
 */
import { DAY_MS } from '../time';

const t = (iso: string | Date) => (typeof iso === 'string' ? Date.parse(iso) : iso.getTime());

/** Current window: `at >= now − 30 d` (no upper bound, as the reference). */
export const inCurrentWindow = (at: string, now: Date): boolean => t(at) >= t(now) - 30 * DAY_MS;

/** Past window: `at BETWEEN now − 60 d AND now − 30 d`, both edges included (so now − 30 d is in both). */
export const inPastWindow = (at: string, now: Date): boolean =>
  t(at) >= t(now) - 60 * DAY_MS && t(at) <= t(now) - 30 * DAY_MS;

/** Potentially stale: not stale, the type has a lifetime, and `now − createdAt ≥ lifetime × 24 h`. */
export const isPotentiallyStale = (
  createdAt: string,
  lifetimeDays: number | null,
  stale: boolean,
  now: Date,
): boolean => !stale && lifetimeDays !== null && t(now) - t(createdAt) >= lifetimeDays * DAY_MS;

/** What the onboarding status of a project is decided from (semantics §3.8, and Unleash 8.x's rule). */
export interface OnboardingSignals {
  /** SDK traffic names the project or one of its flags (client-metrics / client-register). */
  sdkSeen: boolean;
  /** A `feature-environment-enabled` event names the project (read only for Unleash 8+; else false). */
  flagEnabled: boolean;
  /** The earliest-created live flag of the project, if any. */
  firstFlag: string | null;
}

/** Whether the release's onboarding has the step `sdk-connected` (8.0 on). */
export const answersSdkConnected = (release: UnleashRelease): boolean => Number(release) >= 8;

/**
 * The overview's `onboardingStatus` as the Unleash release `release` answers it: up to 7.x (where 7.x's
 * new steps are behind a flag that is off by default) SDK traffic alone makes a project `onboarded`; 8.x
 * answers `onboarded` only when a flag of the project was also enabled somewhere, else `sdk-connected`.
 * Without SDK traffic: `first-flag-created` with the earliest-created live flag, else `onboarding-started`.
 */
export function onboardingStatus(
  s: OnboardingSignals,
  release: UnleashRelease,
): { status: string; feature?: string } {
  if (s.sdkSeen)
    return answersSdkConnected(release) && !s.flagEnabled
      ? { status: 'sdk-connected' }
      : { status: 'onboarded' };
  if (s.firstFlag !== null) return { status: 'first-flag-created', feature: s.firstFlag };
  return { status: 'onboarding-started' };
}
