import {
  CHANGE_REQUEST_EVENT_TYPES,
  EVENT_TYPES,
  EVENT_TYPE_GROUPS,
  FEATURE_EVENT_TYPES,
  SIGNAL_AND_ACTION_EVENT_TYPES,
  isKnownEventType,
} from './event-types';

describe('EVENT_TYPES', () => {
  it('holds the 146 distinct types of api-spec part 6', () => {
    expect(EVENT_TYPES).toHaveLength(146);
    expect(new Set(EVENT_TYPES).size).toBe(146);
  });

  it('keeps the order of the spec', () => {
    expect(EVENT_TYPES[0]).toBe('feature-created');
    expect(EVENT_TYPES[34]).toBe('default-strategy-updated'); // last of "Feature"
    expect(EVENT_TYPES[35]).toBe('strategy-created');
    expect(EVENT_TYPES.indexOf('client-metrics')).toBe(EVENT_TYPES.indexOf('client-register') - 1);
    expect(EVENT_TYPES[145]).toBe('actions-deleted');
  });

  it('is the concatenation of the eight groups of the spec', () => {
    const groups = Object.values(EVENT_TYPE_GROUPS);
    expect(groups).toHaveLength(8);
    expect(groups.flat()).toEqual([...EVENT_TYPES]);
    expect(groups.map((g) => g.length)).toEqual([35, 10, 26, 9, 9, 32, 16, 9]);
    expect(FEATURE_EVENT_TYPES).toContain('feature-potentially-stale-on');
    expect(CHANGE_REQUEST_EVENT_TYPES).toContain('change-request-scheduled-application-failure');
    expect(SIGNAL_AND_ACTION_EVENT_TYPES).toContain('signal-endpoint-token-updated');
  });

  it('contains only kebab-case names', () => {
    for (const t of EVENT_TYPES) expect(t).toMatch(/^[a-z]+(-[a-z]+)*$/);
  });
});

describe('isKnownEventType', () => {
  it('knows the spec types and nothing else', () => {
    expect(isKnownEventType('feature-created')).toBe(true);
    expect(isKnownEventType('client-register')).toBe(true);
    expect(isKnownEventType('banner-deleted')).toBe(true);
    // newer reference versions than the spec describes
    expect(isKnownEventType('feature-link-added')).toBe(false);
    expect(isKnownEventType('release-plan-added')).toBe(false);
    expect(isKnownEventType('scim-users-deleted')).toBe(false);
    expect(isKnownEventType('Feature-Created')).toBe(false);
    expect(isKnownEventType('')).toBe(false);
    expect(isKnownEventType(undefined)).toBe(false);
    expect(isKnownEventType(1)).toBe(false);
    expect(isKnownEventType('toString')).toBe(false);
  });
});
