import { parseEvent } from '@flaglens/contract';
import { releaseOf, rereadAfterUpgrade, wireOf } from './api-connector';

describe('hosted mode: the event search answer in the wire shape', () => {
  it('keeps the event list keys in order, drops label/summary, defaults tags and nulls', () => {
    const e = {
      id: 7,
      type: 'feature-created',
      createdBy: 'admin',
      createdAt: '2026-11-22T08:52:03.265Z',
      data: { name: 'f', type: 'release', project: 'default' },
      featureName: 'f',
      project: 'default',
      label: 'Flag created',
      summary: '**admin** created **f**',
    };
    const wire = wireOf(e);
    expect(Object.keys(JSON.parse(wire))).toEqual([
      'id',
      'type',
      'createdBy',
      'createdAt',
      'createdByUserId',
      'data',
      'preData',
      'tags',
      'featureName',
      'project',
      'environment',
    ]);
    expect(JSON.parse(wire)).toMatchObject({
      createdByUserId: null,
      preData: null,
      tags: [],
      environment: null,
    });
    expect(parseEvent(wire)).toMatchObject({ ok: true });
  });

  it("appends 7+'s groupType and groupId when set, and leaves them out when not", () => {
    const e = { id: 8, type: 'feature-created', createdBy: 'a', createdAt: '2026-11-22T08:52:03.265Z' };
    const grouped = JSON.parse(wireOf({ ...e, groupType: 'change-request', groupId: '12' })) as object;
    expect(Object.entries(grouped).slice(-2)).toEqual([
      ['groupType', 'change-request'],
      ['groupId', '12'],
    ]);
    expect(Object.keys(JSON.parse(wireOf({ ...e, groupType: undefined })) as object)).not.toContain(
      'groupType',
    );
  });

  it('reads every day again after an upgrade from 6 to 7 or later (old-dated user-created rows)', () => {
    expect(rereadAfterUpgrade('6', '7')).toBe(true);
    expect(rereadAfterUpgrade('6', '8')).toBe(true);
    expect(rereadAfterUpgrade('7', '8')).toBe(false);
    expect(rereadAfterUpgrade('8', '8')).toBe(false);
    expect(rereadAfterUpgrade(undefined, '8')).toBe(false);
  });

  it("tells the release line from Unleash's version", () => {
    expect(releaseOf('8.2.0')).toBe('8');
    expect(releaseOf('7.6.5+enterprise')).toBe('7');
    expect(releaseOf('6.10.1')).toBe('6');
    expect(releaseOf(undefined)).toBeNull();
    expect(releaseOf('main')).toBeNull();
  });
});
