import fc from 'fast-check';
import { jsonDiff } from '@flaglens/contract/json-diff';
import {
  answerChanges,
  answerLines,
  applyOperation,
  inside,
  withEventPages,
  type DiffAnswer,
  type DiffEvent,
  type Json,
} from './answer-changes';

const event = (id: number, o: Partial<DiffEvent> = {}): DiffEvent => ({
  id,
  type: 'feature-updated',
  createdAt: '2026-01-01T00:00:00.000Z',
  createdBy: 'admin',
  featureName: null,
  project: 'default',
  environment: null,
  ...o,
});

const diff = (before: Json, after: Json, events: DiffEvent[] = []): DiffAnswer => ({
  path: '/api/admin/projects/default/overview',
  from: '2026-01-01T00:00:00Z',
  to: '2026-01-02T00:00:00Z',
  before,
  after,
  patch: jsonDiff(before, after),
  events,
  eventsNext: null,
});

describe('answerChanges', () => {
  it('names a flag added to a list, and links it to its events', () => {
    const before = { health: 100, features: [{ name: 'a', stale: false }] };
    const after = {
      health: 100,
      features: [
        { name: 'a', stale: false },
        { name: 'b', stale: false },
      ],
    };
    const changes = answerChanges(
      diff(before, after, [event(1, { featureName: 'b' }), event(2, { featureName: 'a' })]),
    );
    expect(changes).toEqual([
      {
        kind: 'added',
        where: 'features[b]',
        marks: { before: null, after: 'features[b]' },
        after: { name: 'b', stale: false },
        eventIds: [1],
      },
    ]);
  });

  it('names a field changed inside a named element, with both values', () => {
    const before = {
      features: [
        { name: 'a', stale: false },
        { name: 'b', stale: false },
      ],
    };
    const after = {
      features: [
        { name: 'a', stale: false },
        { name: 'b', stale: true },
      ],
    };
    const [c] = answerChanges(
      diff(before, after, [event(5, { featureName: 'b', type: 'feature-stale-on' })]),
    );
    expect(c).toMatchObject({
      kind: 'changed',
      where: 'features[b].stale',
      before: false,
      after: true,
      eventIds: [5],
    });
  });

  it('names a removed element as it was, and a field no element names without events', () => {
    const before = { health: 90, features: [{ name: 'a' }, { name: 'b' }] };
    const after = { health: 80, features: [{ name: 'b' }] };
    const changes = answerChanges(diff(before, after, [event(3, { featureName: 'a' })]));
    expect(changes.map((c) => [c.kind, c.where, c.eventIds])).toEqual(
      expect.arrayContaining([
        ['changed', 'health', []],
        ['removed', 'features[a]', [3]],
      ]),
    );
  });

  it('marks the lines of a change in each answer', () => {
    const before = { features: [{ name: 'a', stale: false }] };
    const after = { features: [{ name: 'a', stale: true }] };
    const [c] = answerChanges(diff(before, after));
    const marked = answerLines(after).filter((l) => inside(l.where, [c.marks.after!]));
    expect(marked.map((l) => l.text.trim())).toEqual(['"stale": true']);
  });

  const json: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom<Json>(null, true, false, 0, 1, 'x', 'y'),
      fc.array(tie('v'), { maxLength: 3 }),
      fc.uniqueArray(
        fc.record({ name: fc.constantFrom('a', 'b', 'c', 'd'), on: tie('v') }) as fc.Arbitrary<Json>,
        { selector: (e) => (e as { name: string }).name, maxLength: 4 },
      ),
      fc.dictionary(fc.constantFrom('k', 'l', 'm'), tie('v'), { maxKeys: 3 }),
    ),
  })).v;

  it('replays any patch the api makes to the answer after, and names every operation', () => {
    fc.assert(
      fc.property(json, json, (before, after) => {
        const d = diff(before, after);
        let doc = JSON.parse(JSON.stringify(before)) as Json;
        for (const op of d.patch) doc = applyOperation(doc, op);
        expect(doc).toEqual(after);
        expect(answerChanges(d)).toHaveLength(d.patch.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('withEventPages', () => {
  const event = (id: number): DiffEvent => ({
    id,
    type: 'feature-updated',
    createdAt: '2026-01-01T12:00:00.000Z',
    createdBy: 'admin',
    featureName: `f${id}`,
    project: 'default',
    environment: null,
  });
  /** pages of 2 of events 1..n, as the api links them */
  const pages = (n: number) => {
    const asked: string[] = [];
    const get = (path: string) => {
      asked.push(path);
      const from = Number(path.split('=')[1]);
      const ids = [from + 1, from + 2].filter((i) => i <= n);
      return Promise.resolve({
        events: ids.map(event),
        eventsNext: ids.at(-1)! < n ? `/api/admin/diff/events?after=${ids.at(-1)}` : null,
      });
    };
    return { asked, get };
  };
  const first = (n: number): DiffAnswer => ({
    ...diff(
      {},
      {},
      [event(1), event(2)].filter((e) => e.id <= n),
    ),
    eventsNext: n > 2 ? '/api/admin/diff/events?after=2' : null,
  });

  it('reads every page when they are fewer than the most it reads', async () => {
    const { asked, get } = pages(7);
    const a = await withEventPages(first(7), 100, get);
    expect(a.events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(a.eventsNext).toBeNull();
    expect(asked).toHaveLength(3);
  });

  it('stops once it holds the most it reads, and keeps the next page', async () => {
    const { get } = pages(20);
    const a = await withEventPages(first(20), 5, get);
    expect(a.events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(a.eventsNext).toBe('/api/admin/diff/events?after=6');
  });

  it('reads nothing when the answer holds them all, and stops when asked to', async () => {
    const { asked, get } = pages(2);
    expect((await withEventPages(first(2), 100, get)).events).toHaveLength(2);
    expect(asked).toEqual([]);
    const stopped = await withEventPages(first(9), 100, () => null);
    expect(stopped.eventsNext).toBe('/api/admin/diff/events?after=2');
  });
});
