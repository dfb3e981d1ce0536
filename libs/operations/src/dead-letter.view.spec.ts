import { deadLetterDetail, deadLetterSummary, MAX_MESSAGE_CHARS, messageText } from './dead-letter.view';
import type { DeadLetterWithMessage } from './dead-letters.read-model';

describe('dead letters as the console shows them', () => {
  const d: DeadLetterWithMessage = {
    id: 7,
    topic: 'flaglens.events',
    partition: 2,
    offset: 41,
    reasonCode: 'malformed-json',
    reason: 'malformed JSON',
    eventId: null,
    createdAt: '2026-11-23T12:00:00.000Z',
    redrivenAt: null,
    redriveOutcome: 'still invalid (x): y',
    key: Buffer.from('a.flag'),
    value: Buffer.from('{"id": 1,'),
  };

  it('the summary and the detail keep their keys in the order the console has always been sent', () => {
    expect(JSON.stringify(deadLetterSummary(d))).toBe(
      '{"id":7,"partition":2,"offset":41,"reasonCode":"malformed-json","reason":"malformed JSON","eventId":null,' +
        '"createdAt":"2026-11-23T12:00:00.000Z","redrivenAt":null}',
    );
    expect(Object.keys(deadLetterDetail(d))).toEqual([
      'id',
      'partition',
      'offset',
      'reasonCode',
      'reason',
      'eventId',
      'createdAt',
      'redrivenAt',
      'topic',
      'redriveOutcome',
      'key',
      'value',
      'valueBytes',
      'truncated',
    ]);
    expect(deadLetterDetail(d)).toMatchObject({
      key: 'a.flag',
      value: '{"id": 1,',
      valueBytes: 9,
      truncated: false,
    });
    expect(deadLetterDetail({ ...d, key: null, value: null })).toMatchObject({
      key: null,
      value: null,
      valueBytes: 0,
      truncated: false,
    });
  });

  it('UTF-8 as text, anything else as base64; both cut at the limit', () => {
    expect(messageText(Buffer.from([0xff, 0xfe, 0x00, 0x41]))).toEqual({
      text: 'base64://4AQQ==',
      bytes: 4,
      truncated: false,
    });
    const long = messageText(Buffer.from('é'.repeat(MAX_MESSAGE_CHARS + 1)));
    expect(long).toMatchObject({ bytes: (MAX_MESSAGE_CHARS + 1) * 2, truncated: true });
    expect(long.text).toHaveLength(MAX_MESSAGE_CHARS);
    const binary = messageText(Buffer.alloc(MAX_MESSAGE_CHARS, 0xff));
    expect(binary.truncated).toBe(true);
    expect(Buffer.from(binary.text!.slice('base64:'.length), 'base64')).toHaveLength(
      (MAX_MESSAGE_CHARS * 3) / 4,
    );
    expect(messageText(Buffer.alloc(0))).toEqual({ text: '', bytes: 0, truncated: false });
  });
});
