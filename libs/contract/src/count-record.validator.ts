import {
  ValidationOptions,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  registerDecorator,
} from 'class-validator';

/** A JSON object whose every value is a count: a safe integer >= 0 (e.g. variant name -> count). */
export function isCountRecord(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key of Object.keys(value)) {
    const n = (value as Record<string, unknown>)[key];
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) return false;
  }
  return true;
}

@ValidatorConstraint({ name: 'isCountRecord' })
export class IsCountRecordConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isCountRecord(value);
  }
  defaultMessage(): string {
    return '$property must be an object whose values are integers >= 0';
  }
}

export function IsCountRecord(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: IsCountRecordConstraint,
    });
}
