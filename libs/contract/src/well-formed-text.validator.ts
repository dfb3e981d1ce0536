import {
  ValidationOptions,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  registerDecorator,
} from 'class-validator';
import { MAX_TEXT_LENGTH } from './event-limits';

/** A UTF-16 code unit of a surrogate pair that has no partner (`\p{Cs}` matches only lone ones with `u`). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * True when a string is well-formed UTF-16: no lone surrogate. Postgres stores text as UTF-8, in which a
 * lone surrogate cannot exist: the driver would write U+FFFD instead, so two different flag names would
 * become one.
 */
export function isWellFormedText(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

/** JSON Schema (draft-07, UTF-16 code units) of a string without lone surrogates. */
export const WELL_FORMED_PATTERN = '^(?:[^\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$';

@ValidatorConstraint({ name: 'isWellFormedText' })
export class IsWellFormedTextConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value !== 'string' || isWellFormedText(value);
  }
  defaultMessage(): string {
    return '$property must be well-formed Unicode (it holds a lone surrogate)';
  }
}

/** On a string property: no lone surrogate (a non-string is left to `@IsString`). */
export function IsWellFormedText(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: IsWellFormedTextConstraint,
    });
}

/** True when every key of an object (or a Map) is 1 to `MAX_TEXT_LENGTH` characters of well-formed text. */
export function hasNameKeys(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return true;
  const keys = value instanceof Map ? [...value.keys()] : Object.keys(value);
  for (const k of keys) if (typeof k !== 'string' || !isNameKey(k)) return false;
  return true;
}

/** A key that names a flag or a variant: it reaches indexed columns, so it has the length of a name. */
export function isNameKey(k: string): boolean {
  return k.length >= 1 && k.length <= MAX_TEXT_LENGTH && isWellFormedText(k);
}

@ValidatorConstraint({ name: 'hasNameKeys' })
export class HasNameKeysConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return hasNameKeys(value);
  }
  defaultMessage(): string {
    return `each key of $property must be 1 to ${MAX_TEXT_LENGTH} characters of well-formed Unicode`;
  }
}

/** On a map-like object: every key is a name (see `isNameKey`). */
export function HasNameKeys(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: HasNameKeysConstraint,
    });
}
