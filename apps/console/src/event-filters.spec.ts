import { filtersFromParams, filtersToParams, searchQuery } from './event-filters';

describe('console event filters <-> URL <-> search route', () => {
  it('round-trips a view through the URL', () => {
    const f = {
      q: 'checkout',
      project: 'default',
      type: 'feature-created',
      createdBy: '2',
      from: '2026-01-01',
      to: '2026-01-31',
      offset: 50,
    };
    const params = new URLSearchParams(
      Object.entries(filtersToParams(f)).filter((e): e is [string, string] => !!e[1]),
    );
    expect(params.toString()).toBe(
      'q=checkout&project=default&type=feature-created&createdBy=2&from=2026-01-01&to=2026-01-31&offset=50',
    );
    expect(filtersFromParams(params)).toEqual(f);
  });

  it('drops malformed values from a URL', () => {
    expect(
      filtersFromParams(
        new URLSearchParams('from=yesterday&to=2026-1-1&createdBy=bob&offset=-5&type=%20&x=1'),
      ),
    ).toEqual({});
  });

  it('asks the search route with IS: values, the day range and the page', () => {
    expect(searchQuery({})).toBe('offset=0&limit=50');
    expect(
      Object.fromEntries(
        new URLSearchParams(
          searchQuery({ q: 'a b', feature: 'f', environment: 'production', from: '2026-01-01', offset: 100 }),
        ),
      ),
    ).toEqual({
      query: 'a b',
      feature: 'IS:f',
      environment: 'IS:production',
      from: 'IS:2026-01-01',
      offset: '100',
      limit: '50',
    });
  });

  it('keeps one event (id) and an instant (at) in the URL, and asks the route with them', () => {
    const params = new URLSearchParams('id=45&at=2026-11-22T08:52:50Z');
    const f = filtersFromParams(params);
    expect(f).toEqual({ id: '45', at: '2026-11-22T08:52:50.000Z' });
    expect(filtersToParams(f)).toMatchObject({ id: '45', at: '2026-11-22T08:52:50.000Z' });
    expect(Object.fromEntries(new URLSearchParams(searchQuery(f)))).toEqual({
      id: 'IS:45',
      at: '2026-11-22T08:52:50.000Z',
      offset: '0',
      limit: '50',
    });
    expect(filtersFromParams(new URLSearchParams('id=4x&at=2026-11-22'))).toEqual({});
  });
});
