import { debeziumTimestamp, mapDebeziumChange } from './debezium';
import { parseEvent } from './parse-event';

/** A row of Unleash's `events` table as Debezium writes it (io.debezium.data.Json strings, ZonedTimestamp). */
const row = (over: Record<string, unknown> = {}) => ({
  id: 42,
  created_at: '2026-11-23T21:04:05.123456Z',
  type: 'feature-strategy-update',
  created_by: 'admin',
  data: '{"id":"s1","name":"default","constraints":[]}',
  tags: null,
  project: 'default',
  environment: 'development',
  feature_name: 'checkout',
  pre_data: '{"id":"s1","name":"flexibleRollout"}',
  announced: true,
  created_by_user_id: 1,
  ip: '127.0.0.1',
  ...over,
});

const WIRE = {
  id: 42,
  type: 'feature-strategy-update',
  createdBy: 'admin',
  createdAt: '2026-11-23T21:04:05.123Z',
  createdByUserId: 1,
  data: { id: 's1', name: 'default', constraints: [] },
  preData: { id: 's1', name: 'flexibleRollout' },
  tags: [],
  featureName: 'checkout',
  project: 'default',
  environment: 'development',
};

const envelope = (op: string, before: unknown, after: unknown) => ({
  before,
  after,
  source: { connector: 'postgresql', db: 'unleash', schema: 'public', table: 'events', lsn: 123 },
  op,
  ts_ms: 1,
});

/** JsonConverter with schemas.enable=true: `{schema, payload}`, with created_at's semantic type. */
const withSchema = (payload: unknown, createdAtName: string, flattened = false) => {
  const rowSchema = {
    type: 'struct',
    fields: [
      { field: 'id', type: 'int32' },
      {
        field: 'created_at',
        type: createdAtName.includes('Zoned') ? 'string' : 'int64',
        name: createdAtName,
      },
    ],
  };
  return {
    schema: flattened
      ? rowSchema
      : {
          type: 'struct',
          fields: [
            { field: 'before', ...rowSchema },
            { field: 'after', ...rowSchema },
          ],
        },
    payload,
  };
};

const ok = (m: ReturnType<typeof mapDebeziumChange>) => {
  if (m.kind !== 'event') throw new Error(`expected an event, got ${JSON.stringify(m)}`);
  return m;
};

describe('mapDebeziumChange', () => {
  it('maps an insert in the full envelope to the wire shape of the event list, keyed by the flag', () => {
    const m = ok(mapDebeziumChange(JSON.stringify(envelope('c', null, row()))));
    expect(m.key).toBe('checkout');
    expect(m.id).toBe(42);
    expect(m.value).toBe(JSON.stringify(WIRE)); // same key order as our connector's json_build_object
    const parsed = parseEvent(m.value);
    expect(parsed.ok).toBe(true);
  });

  it("carries Unleash 7+'s group_type and group_id as groupType and groupId, omitted when null or empty", () => {
    const grouped = ok(
      mapDebeziumChange(
        JSON.stringify(envelope('c', null, row({ group_type: 'change-request', group_id: '01JZ5K8P9E' }))),
      ),
    );
    expect(grouped.value).toBe(
      JSON.stringify({ ...WIRE, groupType: 'change-request', groupId: '01JZ5K8P9E' }),
    );
    const parsed = parseEvent(grouped.value);
    expect(parsed.ok && parsed.event.groupType).toBe('change-request');
    expect(parsed.ok && parsed.event.groupId).toBe('01JZ5K8P9E');
    for (const none of [null, ''])
      expect(
        ok(mapDebeziumChange(JSON.stringify(envelope('c', null, row({ group_type: none, group_id: none })))))
          .value,
      ).toBe(JSON.stringify(WIRE));
  });

  it('maps a snapshot read (op r) like an insert', () => {
    expect(ok(mapDebeziumChange(JSON.stringify(envelope('r', null, row())))).value).toBe(
      JSON.stringify(WIRE),
    );
  });

  it('maps the flattened row of ExtractNewRecordState, with or without __op / __deleted', () => {
    expect(ok(mapDebeziumChange(JSON.stringify(row()))).value).toBe(JSON.stringify(WIRE));
    expect(
      ok(mapDebeziumChange(Buffer.from(JSON.stringify({ ...row(), __op: 'c', __deleted: 'false' })))).value,
    ).toBe(JSON.stringify(WIRE));
  });

  it('unwraps {schema, payload} and reads created_at by its semantic type', () => {
    const at = Date.parse('2026-11-23T21:04:05.123Z');
    for (const [name, v] of [
      ['io.debezium.time.ZonedTimestamp', '2026-11-23T21:04:05.123456Z'],
      ['io.debezium.time.MicroTimestamp', at * 1000 + 456],
      ['io.debezium.time.NanoTimestamp', at * 1e6 + 456789],
      ['io.debezium.time.Timestamp', at],
      ['org.apache.kafka.connect.data.Timestamp', at],
    ] as const) {
      const env = withSchema(envelope('c', null, row({ created_at: v })), name);
      expect(ok(mapDebeziumChange(JSON.stringify(env))).value).toBe(JSON.stringify(WIRE));
      const flat = withSchema(row({ created_at: v }), name, true);
      expect(ok(mapDebeziumChange(JSON.stringify(flat))).value).toBe(JSON.stringify(WIRE));
    }
  });

  it('keys by the contract: flag, else project, else instance', () => {
    expect(ok(mapDebeziumChange(JSON.stringify(row({ feature_name: null })))).key).toBe('default');
    expect(ok(mapDebeziumChange(JSON.stringify(row({ feature_name: '', project: null })))).key).toBe(
      'instance',
    );
  });

  it('keeps data and tags as stored, tags [] when null, missing columns null', () => {
    const m = ok(
      mapDebeziumChange(
        JSON.stringify({
          id: 7,
          type: 'tag-created',
          created_by: 'x',
          created_at: '2026-01-01T00:00:00Z',
          data: '{"value":"a b","type":"simple"}',
          tags: '[{"value":"v1","type":"simple"}]',
        }),
      ),
    );
    expect(JSON.parse(m.value)).toEqual({
      id: 7,
      type: 'tag-created',
      createdBy: 'x',
      createdAt: '2026-01-01T00:00:00.000Z',
      createdByUserId: null,
      data: { value: 'a b', type: 'simple' },
      preData: null,
      tags: [{ value: 'v1', type: 'simple' }],
      featureName: null,
      project: null,
      environment: null,
    });
  });

  it("takes an event already in the contract's shape as it is (SDK usage beside Debezium)", () => {
    const sdk = JSON.stringify({
      ...WIRE,
      id: 2 ** 52 + 1,
      type: 'client-register',
      featureName: null,
      project: null,
    });
    expect(mapDebeziumChange(sdk)).toEqual({
      kind: 'event',
      id: 2 ** 52 + 1,
      key: 'instance',
      value: sdk,
      contract: true,
    });
  });

  it('skips tombstones', () => {
    expect(mapDebeziumChange(null)).toEqual({ kind: 'tombstone' });
    expect(mapDebeziumChange(Buffer.alloc(0))).toEqual({ kind: 'tombstone' });
    expect(mapDebeziumChange('{"schema":null,"payload":null}')).toEqual({ kind: 'tombstone' });
  });

  it('rejects updates, deletes and truncates with a reason, keyed by the row', () => {
    const u = mapDebeziumChange(JSON.stringify(envelope('u', row(), row({ created_by: 'y' }))));
    expect(u).toMatchObject({ kind: 'rejected', code: 'unsupported-change', key: 'checkout' });
    expect(u.kind === 'rejected' && u.reason).toMatch(/^update of event 42 in Unleash's events table/);
    const d = mapDebeziumChange(JSON.stringify(envelope('d', row(), null)));
    expect(d).toMatchObject({ kind: 'rejected', code: 'unsupported-change', key: 'checkout' });
    expect(d.kind === 'rejected' && d.reason).toMatch(/^delete of event 42/);
    expect(mapDebeziumChange(JSON.stringify(envelope('t', null, null)))).toMatchObject({
      kind: 'rejected',
      code: 'unsupported-change',
      key: 'instance',
    });
    // flattened: __op=u, or a rewritten delete (__deleted=true)
    expect(mapDebeziumChange(JSON.stringify({ ...row(), __op: 'u' }))).toMatchObject({
      code: 'unsupported-change',
      key: 'checkout',
    });
    expect(mapDebeziumChange(JSON.stringify({ ...row(), __deleted: 'true' }))).toMatchObject({
      code: 'unsupported-change',
    });
  });

  it("skips the event announcer's update (announced set, the event unchanged) when the row before is known", () => {
    const announced = envelope('u', row({ announced: false }), row({ announced: true }));
    expect(mapDebeziumChange(JSON.stringify(announced))).toEqual({ kind: 'unchanged', id: 42 });
    // without the row before (REPLICA IDENTITY DEFAULT) it cannot be told from a change: dead-lettered
    expect(mapDebeziumChange(JSON.stringify(envelope('u', null, row())))).toMatchObject({
      code: 'unsupported-change',
    });
  });

  it('rejects what is not a Debezium change of events', () => {
    expect(mapDebeziumChange('{')).toMatchObject({ code: 'malformed-json' });
    expect(mapDebeziumChange('[1]')).toMatchObject({ code: 'not-an-object' });
    expect(mapDebeziumChange('{"a":1}')).toMatchObject({ code: 'invalid-field' });
    expect(mapDebeziumChange(JSON.stringify(row({ data: '{oops' })))).toMatchObject({
      code: 'invalid-field',
      reason: 'data is not valid JSON (io.debezium.data.Json)',
    });
    expect(mapDebeziumChange(JSON.stringify(row({ created_at: true })))).toMatchObject({
      code: 'invalid-field',
    });
    expect(mapDebeziumChange(JSON.stringify(envelope('c', null, null)))).toMatchObject({
      code: 'invalid-field',
    });
  });
});

describe('debeziumTimestamp', () => {
  it('truncates to milliseconds and converts offsets to UTC', () => {
    expect(debeziumTimestamp('2026-11-23T21:04:05.999999Z')).toBe('2026-11-23T21:04:05.999Z');
    expect(debeziumTimestamp('2026-11-23T23:04:05+02:00')).toBe('2026-11-23T21:04:05.000Z');
  });
  it('tells the unit of a number without a schema by its magnitude', () => {
    const at = Date.parse('2026-11-23T21:04:05.123Z');
    expect(debeziumTimestamp(at)).toBe('2026-11-23T21:04:05.123Z');
    expect(debeziumTimestamp(at * 1000 + 999)).toBe('2026-11-23T21:04:05.123Z');
    expect(debeziumTimestamp(at * 1e6 + 456_000)).toBe('2026-11-23T21:04:05.123Z');
  });
  it('names what is not a timestamp', () => {
    expect(debeziumTimestamp('yesterday')).toEqual({ error: 'created_at "yesterday" is not a timestamp' });
    expect(debeziumTimestamp(null)).toEqual({ error: 'created_at is null, not a Debezium timestamp' });
  });
});
