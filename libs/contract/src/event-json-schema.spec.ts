import 'reflect-metadata';
// ajv and ajv-formats come with the dev toolchain (@nestjs/cli); they are used here only, to check the
// published schema the way a producer would.
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  EVENT_JSON_SCHEMA_ID,
  EVENT_JSON_SCHEMA_PATH,
  buildEventJsonSchema,
  renderEventJsonSchema,
} from './event-json-schema';
import { EVENT_TYPES } from './event-types';
import { parseEvent } from './parse-event';
import { eventLike, sdkEventLike, viaJson } from '@flaglens/testing/event-arbitraries';

const REPO_ROOT = join(__dirname, '..', '..', '..');
const SAMPLE_LINES = readFileSync(
  join(__dirname, '..', 'test-fixtures', 'reference-sample-events.ndjson'),
  'utf8',
)
  .split('\n')
  .filter((l) => l.trim() !== '');

type Props = Record<string, Record<string, unknown>>;

function compile() {
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strict: true });
  addFormats(ajv);
  return ajv.compile(buildEventJsonSchema());
}

describe('the event JSON Schema', () => {
  it('is committed, and equal to what the DTOs generate (run `npm run schema:generate` after changing them)', () => {
    const committed = readFileSync(join(REPO_ROOT, EVENT_JSON_SCHEMA_PATH), 'utf8');
    expect(committed).toBe(renderEventJsonSchema());
  });

  it('is stable: two builds give the same text', () => {
    expect(JSON.stringify(buildEventJsonSchema())).toBe(JSON.stringify(buildEventJsonSchema()));
  });

  it('names itself and lists the required fields', () => {
    const schema = buildEventJsonSchema();
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.$id).toBe(EVENT_JSON_SCHEMA_ID);
    expect(schema.$id).toBe('https://flaglens.dev/schemas/feature-event.json');
    expect(schema.title).toBe('FeatureEvent');
    expect(schema.required).toEqual(['id', 'createdAt', 'type', 'createdBy']);
    expect(Object.keys(schema.properties as Props)).toEqual([
      'id',
      'createdAt',
      'type',
      'createdBy',
      'createdByUserId',
      'environment',
      'project',
      'featureName',
      'data',
      'preData',
      'tags',
      'groupType',
      'groupId',
    ]);
    expect(Object.keys(schema.definitions as Props).sort()).toEqual([
      'ClientMetricsBucketDto',
      'ClientMetricsDataDto',
      'ClientRegisterDataDto',
      'TagDto',
      'ToggleMetricsDto',
    ]);
  });

  it('says which fields may be null, and the limits', () => {
    const p = buildEventJsonSchema().properties as Props;
    expect(p.id).toMatchObject({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    expect(p.createdAt).toMatchObject({ type: 'string', format: 'date-time' });
    expect(p.createdAt.oneOf).toBeUndefined();
    expect(p.type).toMatchObject({ type: 'string', enum: [...EVENT_TYPES] });
    expect(p.createdBy).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
    for (const k of ['groupType', 'groupId'])
      expect(p[k]).toMatchObject({ type: ['string', 'null'], minLength: 1, maxLength: 255 });
    expect(p.createdByUserId).toMatchObject({ type: ['integer', 'null'] });
    for (const f of ['environment', 'project', 'featureName'])
      expect(p[f]).toMatchObject({ type: ['string', 'null'] });
    expect(p.data).toMatchObject({ type: ['object', 'null'] });
    expect(p.preData).toMatchObject({ type: ['object', 'null'] });
    expect(p.tags).toMatchObject({
      type: ['array', 'null'],
      maxItems: 1000,
      items: { $ref: '#/definitions/TagDto' },
    });
    const tag = (
      buildEventJsonSchema().definitions as Record<string, { properties: Props; required: string[] }>
    ).TagDto;
    expect(tag.required).toEqual(['value', 'type']);
    expect(tag.properties.value).toMatchObject({ type: 'string', minLength: 2, maxLength: 50 });
  });

  it('validates every reference sample event', () => {
    const validate = compile();
    for (const line of SAMPLE_LINES) {
      const ok = validate(JSON.parse(line));
      expect([JSON.parse(line).id, ok, validate.errors ?? null]).toEqual([JSON.parse(line).id, true, null]);
    }
  });

  it.each<[string, Record<string, unknown>]>([
    ['id 0', { id: 0 }],
    ['id 1.5', { id: 1.5 }],
    ['createdAt without a zone', { createdAt: '2026-11-22T08:52:52.378' }],
    ['createdAt on 29 Feb of a common year', { createdAt: '2026-02-29T08:52:52Z' }],
    ['createdAt "not a date"', { createdAt: 'not a date' }],
    ['an unknown type', { type: 'flag-teleported' }],
    ['createdByUserId as a string', { createdByUserId: '1' }],
    ['data as an array', { data: [] }],
    ['a 1-character tag value', { tags: [{ value: 'a', type: 'simple' }] }],
    ['a 51-character tag type', { tags: [{ value: 'ab', type: 'x'.repeat(51) }] }],
    ['client-metrics without a body', { type: 'client-metrics', data: null }],
    ['client-register without appName', { type: 'client-register', data: { instanceId: 'x' } }],
  ])('rejects what parseEvent rejects: %s', (_name, change) => {
    const event = { ...JSON.parse(SAMPLE_LINES[54]), ...change };
    expect(parseEvent(JSON.stringify(event)).ok).toBe(false);
    expect(compile()(event)).toBe(false);
  });

  it('rejects a missing required field, accepts missing nullable ones', () => {
    const validate = compile();
    const sample = JSON.parse(SAMPLE_LINES[54]) as Record<string, unknown>;
    for (const key of ['id', 'createdAt', 'type', 'createdBy']) {
      const { [key]: _gone, ...rest } = sample;
      expect([key, validate(rest)]).toEqual([key, false]);
    }
    const { id, createdAt, type, createdBy } = sample;
    expect(validate({ id, createdAt, type, createdBy })).toBe(true);
  });

  it('agrees with parseEvent on random events (property)', () => {
    const validate = compile();
    // validator.js counts a character plus a variation selector as one character; JSON Schema cannot
    const expressible = (e: Record<string, unknown>) => !/[\uFE0E\uFE0F]/.test(JSON.stringify(e));
    fc.assert(
      fc.property(fc.oneof(eventLike, sdkEventLike), (generated) => {
        const e = viaJson(generated);
        fc.pre(expressible(e));
        expect(validate(e)).toBe(parseEvent(JSON.stringify(e)).ok);
      }),
      { numRuns: 3000 },
    );
  });
});
