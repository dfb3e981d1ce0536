import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { TagDto } from './tag.dto';

function errors(plain: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of validateSync(plainToInstance(TagDto, plain as object)))
    out[e.property] = Object.keys(e.constraints ?? {}).sort();
  return out;
}

describe('TagDto', () => {
  it('accepts values and types of 2 to 50 characters, and extra keys', () => {
    expect(errors({ value: 'ab', type: 'cd' })).toEqual({});
    expect(errors({ value: 'v'.repeat(50), type: 't'.repeat(50) })).toEqual({});
    expect(errors({ value: 'frontend', type: 'simple', color: '#FFFFFF' })).toEqual({});
  });

  it('rejects lengths outside 2..50, non-strings and missing fields', () => {
    expect(errors({ value: 'a', type: 'simple' })).toEqual({ value: ['isLength'] });
    expect(errors({ value: 'ab', type: 't'.repeat(51) })).toEqual({ type: ['isLength'] });
    expect(errors({ value: 12, type: 'simple' })).toEqual({ value: ['isLength', 'isString'] });
    expect(errors({ type: 'simple' })).toEqual({ value: ['isDefined', 'isLength', 'isString'] });
    expect(errors({ value: null, type: null })).toEqual({
      value: ['isDefined', 'isLength', 'isString'],
      type: ['isDefined', 'isLength', 'isString'],
    });
  });

  it('counts characters as class-validator does (a surrogate pair is one)', () => {
    expect(errors({ value: '\u{1F600}', type: 'cd' })).toEqual({ value: ['isLength'] });
    expect(errors({ value: '\u{1F600}\u{1F600}', type: 'cd' })).toEqual({});
  });
});
