import { answeringRelease, releaseFromHeader } from './unleash-release';

describe('the Unleash release flaglens answers as', () => {
  it('is the release the topic carried when it is supported, else the newest supported', () => {
    expect(answeringRelease('6')).toBe('6');
    expect(answeringRelease('7')).toBe('7');
    expect(answeringRelease('8')).toBe('8');
    expect(answeringRelease(null)).toBe('8');
    expect(answeringRelease(undefined)).toBe('8');
    expect(answeringRelease('9')).toBe('8');
    expect(answeringRelease('5')).toBe('8');
  });

  it('reads the header from a Buffer, a string or a list, and ignores what is not a release line', () => {
    expect(releaseFromHeader(Buffer.from('7'))).toBe('7');
    expect(releaseFromHeader('8')).toBe('8');
    expect(releaseFromHeader([Buffer.from('6'), Buffer.from('7')])).toBe('7');
    expect(releaseFromHeader(undefined)).toBeUndefined();
    expect(releaseFromHeader('8.2.0')).toBeUndefined();
    expect(releaseFromHeader(Buffer.from(''))).toBeUndefined();
  });
});
