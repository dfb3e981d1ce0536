import { fromInputValue, parseInstant, showInstant, toInputValue } from './as-of';

describe('the console time control', () => {
  it('keeps an RFC 3339 instant from the URL, normalised to UTC milliseconds', () => {
    expect(parseInstant('2026-11-22T08:52:50Z')).toBe('2026-11-22T08:52:50.000Z');
    expect(parseInstant('2026-11-22T09:52:50.5+01:00')).toBe('2026-11-22T08:52:50.500Z');
  });

  it('drops what the api would refuse: a date alone, no zone, garbage, empty', () => {
    for (const v of ['2026-11-22', '2026-11-22T08:52:50', 'yesterday', '', '  ', null, undefined])
      expect(parseInstant(v)).toBeUndefined();
    expect(parseInstant('2026-13-40T08:52:50Z')).toBeUndefined();
  });

  it('shows and takes the input’s value in UTC', () => {
    expect(toInputValue('2026-11-22T08:52:50.250Z')).toBe('2026-11-22T08:52:50');
    expect(toInputValue(undefined)).toBe('');
    expect(fromInputValue('2026-11-22T08:52')).toBe('2026-11-22T08:52:00.000Z');
    expect(fromInputValue('2026-11-22T08:52:50')).toBe('2026-11-22T08:52:50.000Z');
    expect(fromInputValue('2026-11-22T08:52:50.25')).toBe('2026-11-22T08:52:50.250Z');
    expect(fromInputValue('')).toBeUndefined();
    expect(fromInputValue('2026-11-22')).toBeUndefined();
  });

  it('names an instant for people', () => {
    expect(showInstant('2026-11-22T08:52:50.000Z')).toBe('2026-11-22 08:52:50 UTC');
    expect(showInstant('2026-11-22T08:52:50.250Z')).toBe('2026-11-22 08:52:50.250 UTC');
  });
});
