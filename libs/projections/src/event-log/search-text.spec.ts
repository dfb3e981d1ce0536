import { jsonbText, searchTexts } from './search-text';

describe('searchTexts (the texts the free-text query matches)', () => {
  it('data and tags as JSON.stringify (json columns), preData in jsonb form', () => {
    expect(
      searchTexts({ data: { b: 1, a: [1, { z: null }] }, tags: [{ type: 't', value: 'v' }], preData: null }),
    ).toEqual({
      data: '{"b":1,"a":[1,{"z":null}]}',
      tags: '[{"type":"t","value":"v"}]',
      preData: null,
    });
    expect(searchTexts({})).toEqual({ data: null, tags: '[]', preData: null });
  });

  it('jsonb orders keys by UTF-8 length, then bytes, and spaces its members', () => {
    expect(jsonbText({ bb: 1, a: 'x', é: true, ab: [1, 'two', {}], c: { y: 2, x: [] } })).toBe(
      '{"a": "x", "c": {"x": [], "y": 2}, "ab": [1, "two", {}], "bb": 1, "é": true}',
    );
    expect(jsonbText({ s: 'line\nbreak "q" \\ /' })).toBe('{"s": "line\\nbreak \\"q\\" \\\\ /"}');
  });
});
