import type { SourcedEvent } from '@flaglens/projections';
import { OffsetConflictError } from './batch-transaction';
import { isDataFailure, rejectedEvent, rejectionCode } from './dead-letters';

const pgError = (code: string, message = 'refused') => Object.assign(new Error(message), { code });

describe('dead letters of events that passed validation', () => {
  it("isolates only an event's own failures: data, not a moved position, a lost connection or a broken schema", () => {
    expect(isDataFailure(pgError('22P02'))).toBe(true); // invalid text representation
    expect(isDataFailure(new RangeError('Maximum call stack size exceeded'))).toBe(true);
    expect(isDataFailure(new OffsetConflictError('t', 0, 5))).toBe(false);
    expect(isDataFailure(pgError('40001'))).toBe(false); // serialization failure: transient
    expect(isDataFailure(pgError('42P01'))).toBe(false); // undefined table: systemic
  });

  it('codes a refusal by the database apart from an exception of projection code', () => {
    expect(rejectionCode(pgError('54000'))).toBe('db-rejected');
    expect(rejectionCode(new TypeError("Cannot read properties of null (reading 'x')"))).toBe(
      'projection-error',
    );
    expect(rejectionCode(Object.assign(new Error('x'), { code: 'ERR_SOMETHING' }))).toBe('projection-error');
  });

  it('keeps the bytes as received, so a re-drive sends what the producer sent', () => {
    const raw = Buffer.from('{"id":7, "type":"feature-created"}');
    const s = {
      event: { id: 7 },
      knownType: true,
      topic: 't',
      partition: 2,
      offset: 41,
      raw,
    } as unknown as SourcedEvent;
    expect(rejectedEvent(s, pgError('54000', 'index row too big'))).toEqual({
      topic: 't',
      partition: 2,
      offset: 41,
      key: null,
      value: raw,
      code: 'db-rejected',
      reason: 'database refused the event (SQLSTATE 54000): index row too big',
      eventId: 7,
    });
    const noRaw = { ...s, raw: undefined, event: { id: 8, type: 'x' } } as unknown as SourcedEvent;
    expect(rejectedEvent(noRaw, new Error('e')).value).toEqual(Buffer.from('{"id":8,"type":"x"}'));
  });
});
