import { placeFetched } from './fetched-batch';

const at = (...offsets: number[]) => offsets.map((o) => ({ offset: String(o) }));

describe('placeFetched: a fetched batch against the stored position', () => {
  it('applies the messages from the stored position on, the position moving past the last', () => {
    expect(placeFetched(at(5, 6, 7), 5, undefined)).toEqual({
      kind: 'apply',
      fresh: at(5, 6, 7),
      first: 5,
      last: 7,
      nextOffset: 8,
    });
    // the ones below it were applied already (Kafka's copy of the position lagged Postgres's)
    expect(placeFetched(at(3, 4, 5, 6), 5, undefined)).toMatchObject({
      kind: 'apply',
      fresh: at(5, 6),
      first: 5,
    });
  });

  it('skips a batch wholly below the stored position, seeking ahead only when the position is past it', () => {
    expect(placeFetched(at(1, 2), 3, undefined)).toEqual({ kind: 'stored', last: 2, seekTo: undefined });
    expect(placeFetched(at(1, 2), 9, undefined)).toEqual({ kind: 'stored', last: 2, seekTo: 9 });
  });

  it('seeks back once to a stored position the fetch began past, then accepts the gap', () => {
    expect(placeFetched(at(8, 9), 5, undefined)).toEqual({ kind: 'seek-back', offset: 5 });
    expect(placeFetched(at(8, 9), 5, 4)).toEqual({ kind: 'seek-back', offset: 5 });
    // sought back to 5 already and the broker again starts at 8: offsets 5..7 no longer exist
    expect(placeFetched(at(8, 9), 5, 5)).toMatchObject({ kind: 'apply', first: 8, nextOffset: 10 });
  });
});
