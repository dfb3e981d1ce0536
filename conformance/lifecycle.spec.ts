import { racedInOneAnnounce } from './lifecycle';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 27, 15, 41, 0, ms)).toISOString();

describe('racedInOneAnnounce', () => {
  it('explains two stages Unleash filed in one announce batch in the other order', () => {
    const ul = [
      { stage: 'archived', enteredStageAt: at(10) },
      { stage: 'initial', enteredStageAt: at(12) },
    ];
    expect(racedInOneAnnounce(ul, ['initial', 'archived'])).toBe(true);
  });

  it('does not explain an order whose stages were filed seconds apart', () => {
    const ul = [
      { stage: 'archived', enteredStageAt: at(0) },
      { stage: 'initial', enteredStageAt: new Date(Date.parse(at(0)) + 5000).toISOString() },
    ];
    expect(racedInOneAnnounce(ul, ['initial', 'archived'])).toBe(false);
  });

  it('does not explain a stage one side lacks', () => {
    const ul = [
      { stage: 'initial', enteredStageAt: at(0) },
      { stage: 'pre-live', enteredStageAt: at(1) },
    ];
    expect(racedInOneAnnounce(ul, ['initial', 'live'])).toBe(false);
    expect(racedInOneAnnounce(ul, ['initial'])).toBe(false);
  });

  it('ignores stages in the same place, however far apart', () => {
    const ul = [
      { stage: 'initial', enteredStageAt: at(0) },
      { stage: 'completed', enteredStageAt: new Date(Date.parse(at(0)) + 60_000).toISOString() },
      { stage: 'archived', enteredStageAt: new Date(Date.parse(at(0)) + 60_001).toISOString() },
    ];
    expect(racedInOneAnnounce(ul, ['initial', 'archived', 'completed'])).toBe(true);
  });
});
