import type { Kafka } from 'kafkajs';
import type { FlagEvent } from '@flaglens/contract';
import { createToken } from '@flaglens/testing/support/cli';
import { produce } from '@flaglens/testing/support/test-kafka';
import { toMessage } from '@flaglens/testing/support/event-factory';
import { apiGet } from '@flaglens/testing/support/openapi';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { waitFor } from '@flaglens/testing/support/wait-for';

const UNLEASH = 'https://unleash.example.com';

const event = (id: number, o: Partial<FlagEvent>): FlagEvent => ({
  id,
  createdAt: new Date(Date.UTC(2026, 2, 1) + id * 3_600_000).toISOString(),
  type: 'feature-updated',
  createdBy: 'alice@example.com',
  createdByUserId: 2,
  environment: null,
  project: 'default',
  featureName: null,
  data: null,
  preData: null,
  tags: null,
  ...o,
});

/** A small history: users (an Editor among them), flags in two projects, an instance-level event. */
const HISTORY: FlagEvent[] = [
  event(1, {
    type: 'user-created',
    project: null,
    createdBy: 'admin',
    createdByUserId: 1,
    data: { id: 2, name: 'Alice', email: 'alice@example.com', rootRole: 1 },
  }),
  event(2, {
    type: 'user-created',
    project: null,
    createdBy: 'admin',
    createdByUserId: 1,
    data: { id: 7, name: 'Eddie', email: 'eddie@example.com', rootRole: 2 },
  }),
  event(3, { type: 'project-created', project: 'mobile', data: { id: 'mobile', name: 'Mobile' } }),
  event(4, { type: 'feature-created', featureName: 'checkout', data: { name: 'checkout', type: 'release' } }),
  event(5, {
    type: 'feature-created',
    project: 'mobile',
    featureName: 'dark-mode',
    createdBy: 'eddie@example.com',
    createdByUserId: 7,
    data: { name: 'dark-mode', description: 'A Needle in the haystack' },
  }),
  event(6, {
    type: 'feature-environment-enabled',
    featureName: 'checkout',
    environment: 'production',
    tags: [{ type: 'simple', value: 'team-a' }],
  }),
  event(7, {
    type: 'feature-strategy-update',
    featureName: 'checkout',
    environment: 'production',
    data: {
      name: 'flexibleRollout',
      parameters: { rollout: '50', stickiness: 'default', groupId: 'checkout' },
    },
    preData: {
      name: 'flexibleRollout',
      parameters: { rollout: '25', stickiness: 'default', groupId: 'checkout' },
    },
  }),
];

interface SearchBody {
  events: (FlagEvent & { label: string; summary: string })[];
  total: number;
}

describe('GET /api/admin/search/events (running apps, real Kafka and Postgres)', () => {
  let stack: Stack;
  let kafka: Kafka;
  let admin: Record<string, string>;
  let editor: Record<string, string>;

  beforeAll(async () => {
    stack = await startStack('search_e2e', { UNLEASH_URL: UNLEASH });
    kafka = stack.kafka;
    await produce(kafka, stack.topic, HISTORY.map(toMessage));
    await stack.waitForEvents(HISTORY.length);
    admin = { authorization: await createToken(stack.env, 'admin') };
    editor = { authorization: await createToken(stack.env, '7') };
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const search = async (query: string, auth = admin): Promise<SearchBody> => {
    const res = await apiGet(stack.port, `/api/admin/search/events${query}`, auth);
    expect(res.status).toBe(200);
    return res.json() as SearchBody;
  };

  it('answers every event newest first, each with its label and summary linking to UNLEASH_URL', async () => {
    const body = await search('');
    expect(body.total).toBe(HISTORY.length);
    expect(body.events.map((e) => e.id)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    const update = body.events[0];
    expect(Object.keys(update).slice(-2)).toEqual(['label', 'summary']);
    expect(update.label).toBe('Flag strategy updated');
    expect(update.summary).toBe(
      `**alice@example.com** updated **[checkout](${UNLEASH}/projects/default/features/checkout)** in project ` +
        `**[default](${UNLEASH}/projects/default)** by updating strategy **flexibleRollout** in **production** rollout from 25% to 50%`,
    );
  });

  it('filters, pages and matches free text in data, tags and previous data', async () => {
    expect((await search('?type=IS:feature-created')).events.map((e) => e.id)).toEqual([5, 4]);
    expect((await search('?project=IS:mobile&createdBy=IS:7')).events.map((e) => e.id)).toEqual([5]);
    expect((await search('?query=needle')).events.map((e) => e.id)).toEqual([5]);
    expect((await search('?query=TEAM-A')).events.map((e) => e.id)).toEqual([6]);
    expect((await search('?query=%22rollout%22%3A%20%2225%22')).events.map((e) => e.id)).toEqual([7]);
    const page = await search('?limit=2&offset=1');
    expect({ ids: page.events.map((e) => e.id), total: page.total }).toEqual({ ids: [6, 5], total: 7 });
    const to = HISTORY[2].createdAt.slice(0, 10);
    expect((await search(`?to=IS:${to}&from=IS:${to}`)).total).toBe(
      HISTORY.filter((e) => e.createdAt.startsWith(to)).length,
    );
  });

  it("refuses an operator outside the parameter's schema in the reference's envelope", async () => {
    const res = await apiGet(stack.port, '/api/admin/search/events?type=IS_NOT:feature-created', admin);
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({
      id: expect.any(String),
      name: 'BadDataError',
      message:
        'Request validation failed: your request body or params contain invalid data. Refer to the `details` list for more information.',
      details: [
        {
          message:
            'The `/query/type` property must match pattern "^(IS|IS_ANY_OF):(.*?)(,([a-zA-Z0-9_]+))*$". You sent "IS_NOT:feature-created".',
          path: '/query/type',
        },
      ],
    });
  });

  it('a caller who is not a root Admin sees only events that have a project', async () => {
    const body = await search('', editor);
    expect(body.events.map((e) => e.id)).toEqual([7, 6, 5, 4, 3]);
    expect(body.total).toBe(5);
  });

  it('event creators and ?project= on the event list', async () => {
    const creators = await apiGet(stack.port, '/api/admin/event-creators', admin);
    expect(creators.json()).toEqual([
      { id: 1, name: expect.any(String) },
      { id: 2, name: 'Alice' },
      { id: 7, name: 'Eddie' },
    ]);
    const list = await apiGet(stack.port, '/api/admin/events?project=mobile', admin);
    const body = list.json() as {
      version: number;
      events: { id: number; label?: string }[];
      totalEvents: number;
    };
    expect(body).toMatchObject({ version: 1, totalEvents: 2 });
    expect(body.events.map((e) => e.id)).toEqual([5, 3]);
    expect(body.events[0].label).toBeUndefined();
  });

  it('a cached answer is dropped when the projector commits a new event', async () => {
    expect((await search('?query=brand-new')).total).toBe(0);
    await produce(kafka, stack.topic, [
      toMessage(event(8, { type: 'feature-created', featureName: 'brand-new', data: { name: 'brand-new' } })),
    ]);
    await waitFor('the new event searchable', async () => (await search('?query=brand-new')).total === 1, {
      timeoutMs: 20_000,
    });
  });
});
