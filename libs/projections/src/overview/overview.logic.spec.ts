import { healthRating } from './overview.read-model';
import { inCurrentWindow, inPastWindow, isPotentiallyStale, onboardingStatus } from './overview.logic';

const NOW = new Date('2026-11-22T09:01:00.000Z');
const before = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
const DAY = 86_400_000;

describe('overview read-time rules (semantics §3.3, §3.4)', () => {
  it.each([
    ['now', 0, true, false],
    ['now − 30 d + 1 ms', 30 * DAY - 1, true, false],
    ['exactly now − 30 d', 30 * DAY, true, true],
    ['now − 30 d − 1 ms', 30 * DAY + 1, false, true],
    ['exactly now − 60 d', 60 * DAY, false, true],
    ['now − 60 d − 1 ms', 60 * DAY + 1, false, false],
  ])('%s: current %s, past %s', (_label, ms, current, past) => {
    expect(inCurrentWindow(before(ms), NOW)).toBe(current);
    expect(inPastWindow(before(ms), NOW)).toBe(past);
  });

  it('potentially stale moves with the clock alone', () => {
    const created = '2026-01-01T00:00:00.000Z';
    const at = (ms: number) => new Date(Date.parse(created) + ms);
    expect(isPotentiallyStale(created, 7, false, at(7 * DAY - 1))).toBe(false);
    expect(isPotentiallyStale(created, 7, false, at(7 * DAY))).toBe(true);
    expect(isPotentiallyStale(created, 7, true, at(70 * DAY))).toBe(false); // stale flags are not "potentially"
    expect(isPotentiallyStale(created, null, false, at(7000 * DAY))).toBe(false); // no lifetime
  });

  it('health of a fixed set of flags falls as time passes', () => {
    const flags = [
      { createdAt: '2026-01-01T00:00:00.000Z', lifetime: 7, stale: false },
      { createdAt: '2026-01-01T00:00:00.000Z', lifetime: 40, stale: false },
      { createdAt: '2026-01-01T00:00:00.000Z', lifetime: null, stale: false },
    ];
    const health = (now: string) => {
      const d = new Date(now);
      const ps = flags.filter((f) => isPotentiallyStale(f.createdAt, f.lifetime, f.stale, d)).length;
      return healthRating(flags.length, 0, ps);
    };
    expect(health('2026-01-02T00:00:00Z')).toBe(100);
    expect(health('2026-01-08T00:00:00Z')).toBe(67);
    expect(health('2026-02-10T00:00:00Z')).toBe(33);
  });
});

describe('onboardingStatus by the release followed (semantics §3.8; Unleash 8.x)', () => {
  const s = (sdkSeen: boolean, flagEnabled: boolean, firstFlag: string | null = null) => ({
    sdkSeen,
    flagEnabled,
    firstFlag,
  });

  it('up to 7.x, SDK traffic alone onboards', () => {
    for (const major of ['6', '7'] as const) {
      expect(onboardingStatus(s(true, false, 'a'), major)).toEqual({ status: 'onboarded' });
      expect(onboardingStatus(s(true, true), major)).toEqual({ status: 'onboarded' });
    }
  });

  it('8.x: SDK traffic without an enabled flag is sdk-connected; with one, onboarded', () => {
    expect(onboardingStatus(s(true, false, 'a'), '8')).toEqual({ status: 'sdk-connected' });
    expect(onboardingStatus(s(true, true, 'a'), '8')).toEqual({ status: 'onboarded' });
  });

  it('without SDK traffic every release answers the first live flag, else onboarding-started', () => {
    for (const major of ['6', '8'] as const) {
      expect(onboardingStatus(s(false, true, 'a'), major)).toEqual({
        status: 'first-flag-created',
        feature: 'a',
      });
      expect(onboardingStatus(s(false, true), major)).toEqual({ status: 'onboarding-started' });
    }
  });
});
