import fc from 'fast-check';
import { isRfc3339DateTime, normaliseDateTime } from './date-time';

describe('isRfc3339DateTime', () => {
  it.each([
    '2026-11-22T08:52:03.265Z',
    '2026-11-22T08:52:03Z',
    '2026-11-22T08:52:03.1+05:30',
    '2026-11-22T08:52:03.123456789-00:00',
    '2024-02-29T00:00:00Z',
    '2000-02-29T00:00:00Z',
    '1000-01-01T00:00:00Z',
    '2999-12-31T23:59:59-23:59',
  ])('accepts %s', (s) => expect(isRfc3339DateTime(s)).toBe(true));

  it.each([
    ['no zone', '2026-11-22T08:52:03.265'],
    ['no time', '2026-11-22'],
    ['no seconds', '2026-11-22T08:52Z'],
    ['space separator', '2026-11-22 08:52:03Z'],
    ['lower-case t', '2026-11-22t08:52:03Z'],
    ['lower-case z', '2026-11-22T08:52:03z'],
    ['offset without colon', '2026-11-22T08:52:03+0530'],
    ['offset hours only', '2026-11-22T08:52:03+05'],
    ['comma fraction', '2026-11-22T08:52:03,5Z'],
    ['ten fraction digits', '2026-11-22T08:52:03.1234567890Z'],
    ['hour 24', '2026-11-22T24:00:00Z'],
    ['leap second', '2026-12-31T23:59:60Z'],
    ['29 Feb of a common year', '2026-02-29T00:00:00Z'],
    ['29 Feb 1900', '1900-02-29T00:00:00Z'],
    ['31 April', '2026-04-31T00:00:00Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['day 0', '2026-01-00T00:00:00Z'],
    ['year 999', '0999-12-31T00:00:00Z'],
    ['year 3000', '3000-01-01T00:00:00Z'],
    ['five-digit year', '20261-01-01T00:00:00Z'],
    ['text', 'not a date'],
    ['empty', ''],
  ])('rejects %s (%s)', (_name, s) => expect(isRfc3339DateTime(s)).toBe(false));

  it('rejects non-strings', () => {
    expect(isRfc3339DateTime(1763801523265)).toBe(false);
    expect(isRfc3339DateTime(null)).toBe(false);
    expect(isRfc3339DateTime(new Date())).toBe(false);
  });
});

describe('normaliseDateTime', () => {
  it('gives UTC with millisecond precision', () => {
    expect(normaliseDateTime('2026-11-22T08:52:03Z')).toBe('2026-11-22T08:52:03.000Z');
    expect(normaliseDateTime('2026-11-22T08:52:03.2659Z')).toBe('2026-11-22T08:52:03.265Z');
    expect(normaliseDateTime('2026-11-22T00:30:00+01:00')).toBe('2026-11-21T23:30:00.000Z');
    expect(normaliseDateTime('1000-01-01T00:00:00+01:00')).toBe('0999-12-31T23:00:00.000Z');
  });

  it('returns a value already in normal form as it is, and any other form as toISOString() does', () => {
    const instant = fc.date({
      min: new Date('1000-01-02T00:00:00Z'),
      max: new Date('2999-12-30T00:00:00Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instant, fc.integer({ min: -14, max: 14 }), (d, hours) => {
        const iso = d.toISOString();
        expect(normaliseDateTime(iso)).toBe(iso);
        const local = new Date(d.getTime() + hours * 3_600_000).toISOString().slice(0, 19);
        const sign = hours < 0 ? '-' : '+';
        const offset = `${local}${sign}${String(Math.abs(hours)).padStart(2, '0')}:00`;
        expect(normaliseDateTime(offset)).toBe(new Date(offset).toISOString());
      }),
    );
  });
});
