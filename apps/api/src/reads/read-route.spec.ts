import 'reflect-metadata';
import { FLAG_EVENTS_READ, GetFlagEventsQuery } from '../events/get-flag-events.query';
import { EXECUTIVE_READ, GetInsightsQuery, INSIGHTS_READ } from '../insights/get-insights.query';
import { GetLifecycleInsightsQuery, LIFECYCLE_INSIGHTS_READ } from '../insights/get-lifecycle-insights.query';
import { GetProjectOverviewQuery, OVERVIEW_READ } from '../overview/get-project-overview.query';
import { GetProfileQuery, PROFILE_READ } from '../profile/get-profile.query';
import { ApiError } from '../common/unleash-errors';

/** The reads' declarations: one parse of a request's parameters, shared by the controller and the fast path. */
describe('read routes', () => {
  const at = '2026-11-22T08:52:03.265Z';

  it('turn a request into its query, parameters as the reference reads them', () => {
    expect(OVERVIEW_READ.ask({ params: { projectId: 'web' }, query: { archived: 'false', at } }, 7)).toEqual(
      new GetProjectOverviewQuery('web', 7, true, at),
    );
    expect(OVERVIEW_READ.ask({ params: { projectId: 'web' }, query: { archived: '' } }, 7)).toEqual(
      new GetProjectOverviewQuery('web', 7, false, null),
    );
    expect(FLAG_EVENTS_READ.ask({ params: { featureName: 'a.b' }, query: {} }, 3)).toEqual(
      new GetFlagEventsQuery('a.b', 3, null),
    );
    expect(PROFILE_READ.ask({ query: { at } }, 3)).toEqual(new GetProfileQuery(3, at));
    expect(INSIGHTS_READ.ask({ query: { from: '', to: '2026-03-31' } }, 1)).toEqual(
      new GetInsightsQuery({ from: null, to: '2026-03-31' }, 1, null),
    );
    // the deprecated route takes no range (one sent is ignored, as before), and an instant as its successor does
    expect(EXECUTIVE_READ.ask({ query: { from: '2026-01-01', at } }, 1)).toEqual(
      new GetInsightsQuery({ from: null, to: null }, 1, at),
    );
    expect(LIFECYCLE_INSIGHTS_READ.ask({ query: { projects: 'b,a,,b' } }, 1)).toEqual(
      new GetLifecycleInsightsQuery(['a', 'b'], 1, null),
    );
  });

  it.each([
    [
      'overview',
      () => OVERVIEW_READ.ask({ params: { projectId: 'p' }, query: { at: 'yesterday' } }, 1),
      '/query/at',
    ],
    [
      'flag events',
      () => FLAG_EVENTS_READ.ask({ params: { featureName: 'f' }, query: { at: ['a', 'b'] } }, 1),
      '/query/at',
    ],
    ['profile', () => PROFILE_READ.ask({ query: { at: '2026-13-01T00:00:00Z' } }, 1), '/query/at'],
    ['insights', () => INSIGHTS_READ.ask({ query: { from: '2026-02-30' } }, 1), undefined],
    ['executive dashboard', () => EXECUTIVE_READ.ask({ query: { at: '' } }, 1), '/query/at'],
    ['lifecycle', () => LIFECYCLE_INSIGHTS_READ.ask({ query: { projects: ['a', 'b'] } }, 1), undefined],
  ])('%s: a malformed parameter is the 400 of the reference, on either path', (_name, ask, path) => {
    let thrown: unknown;
    try {
      ask();
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).status).toBe(400);
    if (path) expect(JSON.stringify((thrown as ApiError).toBody())).toContain(path);
  });

  it('declare distinct paths, as Fastify matches them; only the deprecated route adds headers', () => {
    const routes = [
      OVERVIEW_READ,
      FLAG_EVENTS_READ,
      PROFILE_READ,
      INSIGHTS_READ,
      EXECUTIVE_READ,
      LIFECYCLE_INSIGHTS_READ,
    ];
    expect(new Set(routes.map((r) => r.path)).size).toBe(routes.length);
    for (const r of routes) expect(r.path).toMatch(/^\/api\/admin\/[a-z/:A-Z]+$/);
    expect(routes.filter((r) => r.headers).map((r) => r.path)).toEqual(['/api/admin/dashboard/executive']);
  });
});
