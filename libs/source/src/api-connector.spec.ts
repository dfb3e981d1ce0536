import { parseEvent } from '@flaglens/contract';
import { wireOf } from './api-connector';

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
});
