import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CHANGE_REQUEST_EVENT_TYPES,
  EVENT_TYPES,
  EVENT_TYPE_GROUPS,
  FEATURE_EVENT_TYPES,
  SIGNAL_AND_ACTION_EVENT_TYPES,
  isKnownEventType,
} from './event-types';

/** `IEventTypes` of each supported release, one per line, as its package (unleash-server) ships it. */
const releaseTypes = (version: string): string[] =>
  readFileSync(join(__dirname, '../test-fixtures/unleash-event-types', `${version}.txt`), 'utf8')
    .trim()
    .split('\n');

describe('EVENT_TYPES', () => {
  it("holds 179 distinct types: the 146 of api-spec part 6 and the releases' additions", () => {
    expect(EVENT_TYPES).toHaveLength(179);
    expect(new Set(EVENT_TYPES).size).toBe(179);
  });

  it('is the union of the types of Unleash 6.10.1, 7.6.5 and 8.2.0', () => {
    const releases = ['6.10.1', '7.6.5', '8.2.0'].map(releaseTypes);
    expect(releases.map((r) => r.length)).toEqual([159, 174, 177]);
    const union = new Set(releases.flat());
    expect([...EVENT_TYPES].sort()).toEqual([...union].sort());
    // dropped in 7.0, still in older histories
    for (const t of ['project-group-removed', 'project-group-role-changed']) {
      expect(releases[0]).toContain(t);
      expect(releases[2]).not.toContain(t);
      expect(isKnownEventType(t)).toBe(true);
    }
  });

  it('keeps the order of the spec', () => {
    expect(EVENT_TYPES[0]).toBe('feature-created');
    expect(EVENT_TYPES[34]).toBe('default-strategy-updated'); // last of "Feature"
    expect(EVENT_TYPES[35]).toBe('strategy-created');
    expect(EVENT_TYPES.indexOf('client-metrics')).toBe(EVENT_TYPES.indexOf('client-register') - 1);
    expect(EVENT_TYPES[145]).toBe('actions-deleted');
    expect(EVENT_TYPES[146]).toBe('feature-link-added');
    expect(EVENT_TYPES[178]).toBe('safeguard-triggered');
  });

  it("is the concatenation of the eight groups of the spec and the three releases' additions", () => {
    const groups = Object.values(EVENT_TYPE_GROUPS);
    expect(groups).toHaveLength(11);
    expect(groups.flat()).toEqual([...EVENT_TYPES]);
    expect(groups.map((g) => g.length)).toEqual([35, 10, 26, 9, 9, 32, 16, 9, 13, 17, 3]);
    expect(FEATURE_EVENT_TYPES).toContain('feature-potentially-stale-on');
    expect(CHANGE_REQUEST_EVENT_TYPES).toContain('change-request-scheduled-application-failure');
    expect(SIGNAL_AND_ACTION_EVENT_TYPES).toContain('signal-endpoint-token-updated');
  });

  it('contains only kebab-case names', () => {
    for (const t of EVENT_TYPES) expect(t).toMatch(/^[a-z]+(-[a-z]+)*$/);
  });
});

describe('isKnownEventType', () => {
  it("knows the spec types and the releases' types, and nothing else", () => {
    expect(isKnownEventType('feature-created')).toBe(true);
    expect(isKnownEventType('client-register')).toBe(true);
    expect(isKnownEventType('banner-deleted')).toBe(true);
    expect(isKnownEventType('feature-link-added')).toBe(true);
    expect(isKnownEventType('release-plan-added')).toBe(true);
    expect(isKnownEventType('scim-users-deleted')).toBe(true);
    expect(isKnownEventType('safeguard-triggered')).toBe(true);
    // an Unleash newer than flaglens
    expect(isKnownEventType('flag-teleported')).toBe(false);
    expect(isKnownEventType('Feature-Created')).toBe(false);
    expect(isKnownEventType('')).toBe(false);
    expect(isKnownEventType(undefined)).toBe(false);
    expect(isKnownEventType(1)).toBe(false);
    expect(isKnownEventType('toString')).toBe(false);
  });
});
