import { secondsFromResults } from './test-durations';

describe('test durations from jest results', () => {
  it('takes each file path relative to the root, in tenths of a second', () => {
    const results = [
      { testResults: [{ name: '/repo/test/a.e2e-spec.ts', startTime: 1_000, endTime: 62_449 }] },
      { testResults: [{ name: '/repo/libs/b.int-spec.ts', startTime: 0, endTime: 950 }] },
    ];
    expect(secondsFromResults('/repo', results)).toEqual({
      'test/a.e2e-spec.ts': 61.4,
      'libs/b.int-spec.ts': 1,
    });
  });

  it('skips a file of another checkout', () => {
    const results = [
      { testResults: [{ name: '/elsewhere/test/a.e2e-spec.ts', startTime: 0, endTime: 1000 }] },
    ];
    expect(secondsFromResults('/repo', results)).toEqual({});
  });

  it('skips a result with no usable times', () => {
    expect(
      secondsFromResults('/repo', [{ testResults: [{ name: '/repo/x.ts', startTime: 5, endTime: 1 }] }, {}]),
    ).toEqual({});
  });
});
