import reference from './event-summary.reference.json';
import { EVENT_TEXTS, EventSummaries, renderTemplate, type SummarisedEvent } from './event-summary.logic';

describe('EventSummaries (label and summary as Unleash 8.2.0 renders them)', () => {
  const summaries = new EventSummaries(reference.unleashUrl);

  it.each(reference.cases.map((c) => [c.event.type, c] as const))(
    'renders %s as the reference did',
    (_type, c) => {
      expect(summaries.format(c.event as SummarisedEvent)).toEqual({
        label: (c as { label: string }).label,
        summary: (c as { summary: string }).summary,
      });
    },
  );

  it('knows a label for each type of the reference formatter', () => {
    expect(EVENT_TEXTS.size).toBe(69);
    expect(EVENT_TEXTS.get('feature-created')!.label).toBe('Flag created');
  });

  it('fails as the reference does on a list-of-values strategy whose data has no parameters', () => {
    const event: SummarisedEvent = {
      type: 'feature-strategy-update',
      createdBy: 'bob',
      featureName: 'f',
      project: 'p',
      environment: 'dev',
      data: { name: 'remoteAddress' },
      preData: { name: 'remoteAddress' },
    };
    expect(() => summaries.format(event)).toThrow(TypeError);
  });

  it('an unknown type is labelled by its type; tags in its author are rendered once, never again', () => {
    expect(
      summaries.format({
        type: 'x-new',
        createdBy: '{{event.type}}',
        featureName: null,
        project: null,
        environment: null,
        data: null,
        preData: null,
      }),
    ).toEqual({ label: 'x-new', summary: '**x-new** triggered **x-new**' });
  });

  it('renders templates: missing values empty, arrays joined, comments dropped, prototype names missing', () => {
    const ctx = { a: { b: [1, 2], n: 0, t: true, o: {} }, s: 'x' };
    expect(
      renderTemplate('{{a.b}}|{{ a.n }}|{{a.t}}|{{a.o}}|{{a.c.d}}|{{{s}}}|{{&s}}|{{!c}}|{{toString}}', ctx),
    ).toBe('1,2|0|true|[object Object]||x|x||');
    expect(renderTemplate('{{#a}}x{{/a}}', ctx)).toBe('{{#a}}x{{/a}}');
  });
});
