import fc from 'fast-check';
import { isAsOfRefusal, parseAsOf } from './as-of';

describe('parseAsOf (the `at` parameter of the reads)', () => {
  it('is absent: the read answers now', () => {
    expect(parseAsOf(undefined)).toEqual({ at: null });
  });

  it.each([
    ['2026-11-22T08:52:03.265Z', '2026-11-22T08:52:03.265Z'],
    ['2026-11-22T08:52:03Z', '2026-11-22T08:52:03.000Z'],
    ['2026-11-22T10:52:03+02:00', '2026-11-22T08:52:03.000Z'],
    ['2026-11-22T08:52:03.123456789-00:00', '2026-11-22T08:52:03.123Z'],
    // before any event and in the future are instants like any other
    ['1000-01-01T00:00:00Z', '1000-01-01T00:00:00.000Z'],
    ['2999-12-31T23:59:59.999Z', '2999-12-31T23:59:59.999Z'],
  ])('reads %s as the instant %s', (value, at) => {
    expect(parseAsOf(value)).toEqual({ at });
  });

  it.each([
    ['empty', ''],
    ['a date only', '2026-11-22'],
    ['no zone', '2026-11-22T08:52:03'],
    ['an offset whose + the query string read as a space', '2026-11-22T08:52:03 02:00'],
    ['29 February of a common year', '2026-02-29T00:00:00Z'],
    ['epoch milliseconds', '1763801523265'],
    ['text', 'yesterday'],
  ])('refuses %s as the reference refuses a date-time parameter', (_why, value) => {
    expect(parseAsOf(value)).toEqual({
      message:
        'The `/query/at` property must match format "date-time" (RFC 3339 with Z or an offset, ' +
        `e.g. 2026-11-22T08:52:03.265Z; send + as %2B). You sent ${JSON.stringify(value)}.`,
      path: '/query/at',
    });
  });

  it('refuses a repeated parameter (the query string gives an array)', () => {
    expect(parseAsOf(['2026-11-22T08:52:03Z', '2026-11-23T08:52:03Z'])).toEqual({
      message:
        'The `/query/at` property must be string. You sent ["2026-11-22T08:52:03Z","2026-11-23T08:52:03Z"].',
      path: '/query/at',
    });
  });

  it('gives the same instant for every offset of it, and orders as the instants do', () => {
    const instant = fc.date({
      min: new Date('1000-01-02T00:00:00Z'),
      max: new Date('2999-12-30T00:00:00Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instant, instant, fc.integer({ min: -14, max: 14 }), (a, b, hours) => {
        const local = new Date(a.getTime() + hours * 3_600_000).toISOString().slice(0, 23);
        const sign = hours < 0 ? '-' : '+';
        const offset = `${local}${sign}${String(Math.abs(hours)).padStart(2, '0')}:00`;
        const pa = parseAsOf(offset);
        const pb = parseAsOf(b.toISOString());
        if (isAsOfRefusal(pa) || isAsOfRefusal(pb)) throw new Error('refused an instant');
        expect(pa.at).toBe(a.toISOString());
        // the normal form sorts as text the way the instants sort in time (what SQL compares)
        expect(pa.at! < pb.at!).toBe(a.getTime() < b.getTime());
      }),
    );
  });
});
