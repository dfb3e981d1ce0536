import { isDeepStrictEqual } from 'node:util';
import type { Client } from 'pg';
import { httpGet } from '@flaglens/testing/support/http';
import type { Stack } from '@flaglens/testing/support/stack';
import type { Tally } from './compare';
import type { ScenarioResult, UnleashClient } from './scenario';

type Json = Record<string, unknown>;
type Event = Json & { id: number };

/** Where flaglens answers 400 for a value the reference's database fails on (a 500 carrying its SQL). */
const REASON_REFUSED =
  'a value the reference database fails on (its 500 carries the SQL) is a 400 naming the parameter (docs/deviations.md, "Event search")';

/**
 * The event search, the event creators and `?project=` on the event list, compared with Unleash 8.2.0's own
 * answers: every filter, paging, the free text (wildcards included), refusals, and a caller who is not a root
 * Admin. Each answer field by field: status, total, the ids in order, every key of every event (label and
 * summary included), the error envelope but its fresh id.
 */
export async function compareSearch(
  t: Tally,
  u: UnleashClient,
  unleashDb: Client,
  stack: Stack,
  s: ScenarioResult,
  tokens: Map<number, string>,
): Promise<number> {
  const one = async <T>(sql: string) => (await unleashDb.query<T & Json>(sql)).rows[0];
  const flag = (await one<{ n: string }>(
    `SELECT feature_name AS n FROM events WHERE feature_name IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
  ))!.n;
  const group = (await one<{ g: string | null }>(`SELECT max(group_id) AS g FROM events`))?.g ?? 'none';
  const day = (await one<{ d: string }>(
    `SELECT to_char(max(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS d FROM events`,
  ))!.d;
  const [admin, second] = s.users;
  const nonAdmin = s.users.find((x) => x.id !== admin.id && x.name !== admin.name && tokens.has(x.id));
  const e = encodeURIComponent;
  const searches = [
    '',
    'limit=1000',
    'limit=5&offset=3',
    'limit=0&offset=-3',
    'limit=abc&offset=abc',
    'limit=1001',
    'limit=2.5&offset=1e1',
    'offset=100000',
    'type=IS:feature-created',
    `type=${e('IS_ANY_OF:feature-created,feature-environment-enabled,user-created')}`,
    'type=IS:',
    'type=IS_NOT:feature-created',
    `type=${e('IS:a\nb')}`,
    'project=IS:default',
    `project=${e('IS_ANY_OF:payments,mobile')}`,
    `feature=${e(`IS:${flag}`)}`,
    'createdBy=IS:1',
    `createdBy=${e(`IS_ANY_OF:1,${second?.id ?? 2}`)}`,
    'createdBy=IS:abc',
    'environment=IS:development',
    `environment=${e('IS_ANY_OF:production,development')}&type=IS:feature-environment-enabled`,
    'id=IS:1',
    `id=${e('IS_ANY_OF:1,2,3,10')}`,
    'id=x',
    'id=IS:abc',
    `groupId=${e(`IS:${group}`)}`,
    `from=IS:${day}`,
    `to=IS:${day}`,
    'from=IS:2000-01-01&to=IS:2000-01-01',
    `from=IS:2000-01-01&to=IS:${day}&limit=1000`,
    'to=IS:2024-02-30',
    'from=IS:2024-02-30',
    'from=2024-01-01',
    'query=admin',
    'query=ADMIN',
    'query=%25',
    'query=_',
    `query=${e('"enabled":true')}`,
    `query=${e('"enabled": true')}`,
    'query=simple',
    'query=zzz-no-such-text',
    `query=${e('50%')}`,
    `query=admin&project=IS:default&limit=3&offset=1`,
    'limit=1&limit=2',
    'query=a&query=b',
  ];
  let requests = 0;
  const compare = async (group: string, path: string, pat: string, token: string, refusable: boolean) => {
    requests++;
    const ur = await u.call('GET', path, undefined, pat, [200, 400, 403, 500]);
    const fr = await httpGet(stack.port, path, { authorization: token });
    const uj = ur.json as Json;
    const fj = (fr.text ? fr.json() : undefined) as Json;
    if (ur.status !== fr.status) {
      t.differ(group, {
        what: path,
        field: 'status',
        unleash: ur.status,
        flaglens: fr.status,
        reason: refusable && ur.status === 500 && fr.status === 400 ? REASON_REFUSED : undefined,
      });
      return;
    }
    t.match(group, 'status');
    if (ur.status !== 200) {
      const strip = (o: Json) => ({ ...o, id: undefined });
      if (isDeepStrictEqual(strip(uj), strip(fj))) t.match(group, 'error body (but its fresh id)');
      else t.differ(group, { what: path, field: 'error body (but its fresh id)', unleash: uj, flaglens: fj });
      return;
    }
    compareBody(t, group, path, uj, fj);
  };
  const admins = tokens.get(admin.id)!;
  for (const q of searches)
    await compare(
      'GET /api/admin/search/events',
      `/api/admin/search/events${q ? `?${q}` : ''}`,
      admin.pat,
      admins,
      true,
    );
  if (nonAdmin)
    for (const q of ['', 'limit=1000', 'project=IS:default', 'query=admin'])
      await compare(
        'GET /api/admin/search/events (not a root Admin)',
        `/api/admin/search/events${q ? `?${q}` : ''}`,
        nonAdmin.pat,
        tokens.get(nonAdmin.id)!,
        false,
      );
  await compare('GET /api/admin/event-creators', '/api/admin/event-creators', admin.pat, admins, false);
  for (const p of ['default', 'payments', e('payments,mobile'), 'nope', e('a\nb')])
    await compare(
      'GET /api/admin/events?project=',
      `/api/admin/events?project=${p}`,
      admin.pat,
      admins,
      false,
    );
  return requests;
}

function compareBody(t: Tally, group: string, path: string, u: Json, f: Json): void {
  const listKey = Array.isArray(u.events) ? 'events' : null;
  if (!listKey) {
    if (isDeepStrictEqual(u, f)) t.match(group, 'body');
    else t.differ(group, { what: path, field: 'body', unleash: u, flaglens: f });
    return;
  }
  for (const k of [...new Set([...Object.keys(u), ...Object.keys(f)])].filter((k) => k !== 'events'))
    if (isDeepStrictEqual(u[k], f[k])) t.match(group, k);
    else t.differ(group, { what: path, field: k, unleash: u[k], flaglens: f[k] });
  if (isDeepStrictEqual(Object.keys(u), Object.keys(f))) t.match(group, 'key order');
  else t.differ(group, { what: path, field: 'key order', unleash: Object.keys(u), flaglens: Object.keys(f) });
  const ue = u.events as Event[];
  const fe = (f.events ?? []) as Event[];
  const ids = (l: Event[]) => l.map((x) => x.id);
  if (isDeepStrictEqual(ids(ue), ids(fe))) t.match(group, 'event ids, in order');
  else t.differ(group, { what: path, field: 'event ids, in order', unleash: ids(ue), flaglens: ids(fe) });
  const byId = new Map(fe.map((x) => [x.id, x]));
  for (const a of ue) {
    const b = byId.get(a.id);
    if (!b) continue;
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])])
      if (isDeepStrictEqual(a[k], b[k])) t.match(group, `event.${k}`);
      else
        t.differ(group, {
          what: `${path} event ${a.id}`,
          field: `event.${k}`,
          unleash: a[k],
          flaglens: b[k],
        });
    if (isDeepStrictEqual(Object.keys(a), Object.keys(b))) t.match(group, 'event key order');
    else
      t.differ(group, {
        what: `${path} event ${a.id}`,
        field: 'event key order',
        unleash: Object.keys(a),
        flaglens: Object.keys(b),
      });
  }
}
