import 'reflect-metadata';
import { validateFeatureEventWithDto } from './feature-event.validation';

const VALID = {
  id: 7,
  createdAt: '2026-11-22T08:52:06.246Z',
  type: 'api-token-created',
  createdBy: 'unleash_system_user',
  createdByUserId: -1337,
  environment: '*',
  project: '*',
  featureName: null,
  data: { tokenName: 'admin' },
  preData: null,
  tags: [],
};

function failing(changes: Record<string, unknown>, remove: string[] = []): string[] {
  const e: Record<string, unknown> = { ...VALID, ...changes };
  for (const k of remove) delete e[k];
  return [...new Set(validateFeatureEventWithDto(e).issues.map((i) => i.path))];
}

describe('FeatureEventDto', () => {
  it('accepts a complete event', () => {
    expect(failing({})).toEqual([]);
  });

  it.each(['id', 'createdAt', 'type', 'createdBy'])('requires %s: missing or null is invalid', (field) => {
    expect(failing({}, [field])).toEqual([field]);
    expect(failing({ [field]: null })).toEqual([field]);
  });

  it.each(['createdByUserId', 'environment', 'project', 'featureName', 'data', 'preData', 'tags'])(
    'lets %s be null or missing',
    (field) => {
      expect(failing({ [field]: null })).toEqual([]);
      expect(failing({}, [field])).toEqual([]);
    },
  );

  it('applies the limits of api-spec 2.1, 2.2 and 8, and ours', () => {
    expect(failing({ id: 0 })).toEqual(['id']);
    expect(failing({ id: 1.5 })).toEqual(['id']);
    expect(failing({ id: 2 ** 53 })).toEqual(['id']);
    expect(failing({ createdAt: '2026-11-22T08:52:06' })).toEqual(['createdAt']);
    expect(failing({ createdAt: '2026-02-30T08:52:06Z' })).toEqual(['createdAt']);
    expect(failing({ createdBy: '' })).toEqual(['createdBy']);
    expect(failing({ createdByUserId: '1' })).toEqual(['createdByUserId']);
    expect(failing({ environment: '' })).toEqual(['environment']);
    expect(failing({ project: 'p'.repeat(256) })).toEqual(['project']);
    expect(failing({ data: [] })).toEqual(['data']);
    expect(failing({ preData: 'x' })).toEqual(['preData']);
    expect(failing({ tags: [{ value: 'a', type: 'simple' }] })).toEqual(['tags.0.value']);
    expect(failing({ tags: [{ value: 'ab', type: 'x'.repeat(51) }] })).toEqual(['tags.0.type']);
    expect(failing({ tags: [null] })).toEqual(['tags', 'tags.0']);
    expect(failing({ tags: [[{ value: 'ab', type: 'cd' }]] })).toEqual(['tags']);
  });

  it('marks an unknown type, alone, as such', () => {
    expect(validateFeatureEventWithDto({ ...VALID, type: 'flag-teleported' }).onlyUnknownType).toBe(true);
    expect(validateFeatureEventWithDto({ ...VALID, type: 'flag-teleported', id: 0 }).onlyUnknownType).toBe(
      false,
    );
    expect(validateFeatureEventWithDto({ ...VALID, type: 5 }).onlyUnknownType).toBe(false);
    expect(validateFeatureEventWithDto({ ...VALID, type: '' }).onlyUnknownType).toBe(false);
  });

  it('ignores extra keys', () => {
    expect(failing({ ip: '127.0.0.1', label: null, summary: 'x' })).toEqual([]);
  });
});
