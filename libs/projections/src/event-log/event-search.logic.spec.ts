import {
  dayAfter,
  isSearchRefusal,
  pageOf,
  parseEventSearch,
  parseOperatorValue,
  type EventSearch,
  type SearchRefusal,
} from './event-search.logic';

const search = (raw: Record<string, unknown>) => {
  const s = parseEventSearch(raw);
  if (isSearchRefusal(s)) throw new Error(`refused: ${s.message}`);
  return s;
};
const refusal = (raw: Record<string, unknown>): SearchRefusal => {
  const s = parseEventSearch(raw);
  if (!isSearchRefusal(s)) throw new Error(`not refused: ${JSON.stringify(s)}`);
  return s;
};

describe('parseEventSearch (Unleash 8.2.0 event search parameters)', () => {
  it('no parameters: every event, 50 from the first', () => {
    expect(search({})).toEqual<EventSearch>({
      in: [],
      from: null,
      before: null,
      query: null,
      at: null,
      limit: 50,
      offset: 0,
    });
  });

  it('at=: events created up to that instant (UTC milliseconds); a malformed one is refused after the rest', () => {
    expect(search({ at: '2026-11-22T10:00:00+02:00' }).at).toBe('2026-11-22T08:00:00.000Z');
    expect(refusal({ at: '2026-11-22' })).toEqual({
      message: expect.stringContaining('The `/query/at` property must match format "date-time"'),
      path: '/query/at',
    });
    // the reference's parameters are checked first, as it would (it has no `at`)
    expect(refusal({ at: 'nope', limit: ['1', '2'] }).path).toBe('/query/limit');
  });

  it('reads IS and IS_ANY_OF of every filter as IN, in the reference order, values trimmed', () => {
    const s = search({
      id: 'IS_ANY_OF:3, 4',
      groupId: 'IS:g1',
      feature: 'IS:f1',
      project: 'IS_ANY_OF:a,b',
      type: 'IS:feature-created',
      createdBy: 'IS:7',
      environment: 'IS:production',
    });
    expect(s.in).toEqual([
      { column: 'created_by_user_id', values: ['7'] },
      { column: 'feature_name', values: ['f1'] },
      { column: 'group_id', values: ['g1'] },
      { column: 'project', values: ['a', 'b'] },
      { column: 'type', values: ['feature-created'] },
      { column: 'environment', values: ['production'] },
      { column: 'id', values: ['3', '4'] },
    ]);
  });

  it('an operator with nothing after it filters nothing', () => {
    expect(search({ type: 'IS:', project: 'IS_ANY_OF:' }).in).toEqual([]);
  });

  it.each([
    ['type', 'IS_NOT:feature-created'],
    ['type', 'IS_NONE_OF:a'],
    ['project', 'INCLUDE:a'],
    ['feature', 'f1'],
    ['environment', 'is:production'],
    ['id', 'IS_BEFORE:1'],
    ['createdBy', 'IS:1\n2'],
    ['groupId', 'x'],
  ])('refuses %s=%j as the OpenAPI pattern does', (name, value) => {
    const r = refusal({ [name]: value });
    expect(r.path).toBe(`/query/${name}`);
    expect(r.message.startsWith(`The \`/query/${name}\` property must match pattern "`)).toBe(true);
    expect(r.message.endsWith(`". You sent ${JSON.stringify(value)}.`)).toBe(true);
  });

  it('quotes the pattern as the reference does', () => {
    expect(refusal({ type: 'IS_NOT:x' }).message).toBe(
      'The `/query/type` property must match pattern "^(IS|IS_ANY_OF):(.*?)(,([a-zA-Z0-9_]+))*$". You sent "IS_NOT:x".',
    );
    expect(refusal({ from: 'IS:2024-1-1' }).message).toBe(
      'The `/query/from` property must match pattern "^(IS):\\d{4}-\\d{2}-\\d{2}$". You sent "IS:2024-1-1".',
    );
  });

  it('reports the first refused parameter in the schema order', () => {
    expect(refusal({ type: 'IS_NOT:x', id: 'x', from: '2024' }).path).toBe('/query/id');
  });

  it('refuses a repeated parameter (an array): "must be string"', () => {
    expect(refusal({ limit: ['1', '2'] })).toEqual({
      message: 'The `/query/limit` property must be string. You sent ["1","2"].',
      path: '/query/limit',
    });
    expect(refusal({ query: ['a', 'b'] }).path).toBe('/query/query');
  });

  it('refuses values the reference database fails on (its 500), naming the parameter', () => {
    expect(refusal({ id: 'IS:abc' }).path).toBe('/query/id');
    expect(refusal({ createdBy: 'IS:1,abc' }).path).toBe('/query/createdBy');
    expect(refusal({ createdBy: 'IS:99999999999' }).path).toBe('/query/createdBy');
    expect(refusal({ from: 'IS:2024-02-30' }).path).toBe('/query/from');
    expect(refusal({ from: 'IS:2023-13-01' }).path).toBe('/query/from');
    expect(refusal({ to: 'IS:2024-13-45' }).path).toBe('/query/to');
    expect(refusal({ query: 'a\u0000b' }).path).toBe('/query/query');
    // ids Postgres reads as integers pass
    expect(search({ id: 'IS: +5 ,-3' }).in).toEqual([{ column: 'id', values: ['+5', '-3'] }]);
  });

  it('from is inclusive; to ends with its whole day (rolled over as JavaScript dates are)', () => {
    expect(search({ from: 'IS:2024-02-29', to: 'IS:2024-02-29' })).toMatchObject({
      from: '2024-02-29',
      before: '2024-03-01',
    });
    expect(search({ to: 'IS:2024-12-31' }).before).toBe('2025-01-01');
    expect(search({ to: 'IS:2024-02-30' }).before).toBe('2024-03-02');
    expect(dayAfter('2023-13-01')).toBeNull();
  });

  it('keeps the free text as it is (wildcards included); empty is no query', () => {
    expect(search({ query: '50%_x' }).query).toBe('50%_x');
    expect(search({ query: '' }).query).toBeNull();
  });
});

describe('pageOf (limit and offset)', () => {
  it.each([
    [undefined, undefined, 50, 0],
    ['10', '20', 10, 20],
    ['1000', '0', 1000, 0],
    ['1001', '-5', 50, 0],
    ['0', 'abc', 50, 0],
    ['-1', '', 50, 0],
    ['abc', '3.7', 50, 3],
    ['', '1e3', 50, 1000],
    ['2.5', undefined, 2, 0],
    ['1e-7', undefined, 1, 0],
    ['0x10', ' 7 ', 16, 7],
    ['0.5', '1e30', 0, 1],
  ])('limit %j offset %j → %i, %i', (limit, offset, l, o) => {
    expect(pageOf(limit, offset)).toEqual({ limit: l, offset: o });
  });
});

describe('parseOperatorValue', () => {
  it('splits the values on commas and trims them; no operator or no value → null', () => {
    expect(parseOperatorValue('IS_ANY_OF:a, b,')).toEqual({ operator: 'IS_ANY_OF', values: ['a', 'b', ''] });
    expect(parseOperatorValue('IS:IS_NOT:x')).toEqual({ operator: 'IS', values: ['IS_NOT:x'] });
    expect(parseOperatorValue('IS:')).toBeNull();
    expect(parseOperatorValue('IS:a\nb')).toBeNull();
    expect(parseOperatorValue('a')).toBeNull();
  });
});
