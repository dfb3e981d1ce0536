import { indexPattern, queryPieces, textTrigrams, trigramSample } from './search-fragment.logic';

/** A sample where `event`, `word` and `generated` are in every text and numbers are rare. */
const sample = trigramSample(
  Array.from(
    { length: 2000 },
    (_, g) =>
      `{"name":"flag-${g % 200}","description":"generated event ${g * 37} word${g % 1000}"}\n` +
      (g % 7 === 0 ? `[{"value":"team-${g % 30}","type":"simple"}]` : '[]'),
  ),
);

describe('the piece of a free-text query the trigram index is asked for (pure)', () => {
  it("reads a text's trigrams as pg_trgm does (words lower-cased, two spaces before, one after)", () => {
    expect([...textTrigrams('Ab-cd')].sort()).toEqual(['  a', '  c', ' ab', ' cd', 'ab ', 'cd '].sort());
  });

  it('asks for the rare number, not the words every event holds', () => {
    const p = indexPattern('event 5000000 word', sample);
    expect(' 5000000 ').toContain(p.slice(1, -1));
    expect(p.length).toBeGreaterThan(6);
  });

  it('asks for the bounded short word of a tag rather than the common one', () => {
    expect(indexPattern('team-7"', sample)).toBe('%-7"%');
  });

  it('every piece is text of the query between its wildcards (so every match holds it)', () => {
    for (const q of ['event 5000000 word', 'word123"', 'a%bcd_efgh ij', '"enabled": true', 'x-1']) {
      const literal = q.toLowerCase().split(/[%_]/);
      for (const p of queryPieces(q)) expect(literal.some((run) => run.includes(p.text))).toBe(true);
    }
  });

  it('asks for the whole query where no piece can be chosen', () => {
    expect(indexPattern('100\\% sure', sample)).toBe('%100\\% sure%'); // an escape
    expect(indexPattern('zoë', sample)).toBe('%zoë%'); // outside ASCII
    expect(indexPattern('ab', sample)).toBe('%ab%'); // no trigram in any piece
    expect(indexPattern('event 5000000 word', null)).toBe('%event 5000000 word%'); // no sample yet
  });

  it('only pieces that give pg_trgm a trigram: a word of 3+ characters, or one with something before it', () => {
    expect(queryPieces('7"').map((p) => p.text)).toEqual([]);
    expect(queryPieces('-7').map((p) => p.text)).toEqual(['-7']);
    expect(queryPieces('abc').map((p) => p.text)).toEqual(['abc']);
  });
});
