import {
  ValidationOptions,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  registerDecorator,
} from 'class-validator';

function isNonArrayObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * True when every value of a map (a `Map`, or a plain object) is itself an object and not an array.
 * Used beside `@ValidateNested({ each: true })`, which on its own would descend into an array value and
 * accept `{"flag": [{...}]}`.
 */
export function hasOnlyObjectValues(value: unknown): boolean {
  if (value instanceof Map) {
    for (const v of value.values()) if (!isNonArrayObject(v)) return false;
    return true;
  }
  if (!isNonArrayObject(value)) return false;
  for (const key of Object.keys(value as object)) {
    if (!isNonArrayObject((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

@ValidatorConstraint({ name: 'hasOnlyObjectValues' })
export class HasOnlyObjectValuesConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return hasOnlyObjectValues(value);
  }
  defaultMessage(): string {
    return 'each value of $property must be an object';
  }
}

export function HasOnlyObjectValues(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: HasOnlyObjectValuesConstraint,
    });
}
