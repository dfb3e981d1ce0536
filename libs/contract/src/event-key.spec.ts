import { INSTANCE_EVENT_KEY, eventKey } from './event-key';

describe('eventKey', () => {
  it('is the flag, else the project, else "instance"', () => {
    expect(eventKey({ featureName: 'checkout.new-flow', project: 'default' })).toBe('checkout.new-flow');
    expect(eventKey({ featureName: null, project: 'default' })).toBe('default');
    expect(eventKey({ featureName: null, project: null })).toBe('instance');
    expect(INSTANCE_EVENT_KEY).toBe('instance');
  });

  it('treats an empty name as absent', () => {
    expect(eventKey({ featureName: '', project: '' })).toBe('instance');
  });
});
