import {
  ValidationOptions,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  registerDecorator,
} from 'class-validator';
import { RFC3339_DATE_TIME_EXAMPLE, isRfc3339DateTime } from './date-time';

/** An SDK timestamp: an RFC 3339 date-time with zone, or epoch milliseconds (an integer >= 0). */
export function isSdkTimestamp(value: unknown): boolean {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0;
  return isRfc3339DateTime(value);
}

@ValidatorConstraint({ name: 'isSdkTimestamp' })
export class IsSdkTimestampConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isSdkTimestamp(value);
  }
  defaultMessage(): string {
    return `$property must be an RFC 3339 date-time with a time zone (e.g. ${RFC3339_DATE_TIME_EXAMPLE}) or epoch milliseconds`;
  }
}

/**
 * The SDKs send `started`, `bucket.start` and `bucket.stop` as date-time strings; the reference's own
 * schema also allows a number (epoch milliseconds), so we do too.
 */
export function IsSdkTimestamp(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: IsSdkTimestampConstraint,
    });
}
