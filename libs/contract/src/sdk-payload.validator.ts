import { plainToInstance } from 'class-transformer';
import {
  ValidationArguments,
  ValidationOptions,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  registerDecorator,
  validateSync,
} from 'class-validator';
import { ClientMetricsDataDto } from './client-metrics-data.dto';
import { ClientRegisterDataDto } from './client-register-data.dto';
import { CLIENT_METRICS_EVENT_TYPE, CLIENT_REGISTER_EVENT_TYPE } from './event-types';
import { ValidationIssue, flattenValidationErrors, formatIssues } from './validation-issues';

/** Event types whose `data` is an SDK request body, and the DTO that body must satisfy. */
export const SDK_PAYLOAD_DTOS: Readonly<Record<string, new () => object>> = Object.freeze({
  [CLIENT_REGISTER_EVENT_TYPE]: ClientRegisterDataDto,
  [CLIENT_METRICS_EVENT_TYPE]: ClientMetricsDataDto,
});

export function isSdkEventType(type: unknown): boolean {
  return type === CLIENT_REGISTER_EVENT_TYPE || type === CLIENT_METRICS_EVENT_TYPE;
}

/**
 * Validates `data` of an SDK event with class-validator. Returns the issues (paths relative to `data`),
 * or `[]` when the type is not an SDK type, `data` is not an object (`@IsObject` says so), or the
 * payload is valid.
 */
export function validateSdkPayloadWithDto(type: unknown, data: unknown): ValidationIssue[] {
  if (!isSdkEventType(type)) return [];
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [];
  const dto = SDK_PAYLOAD_DTOS[type as string];
  return flattenValidationErrors(validateSync(plainToInstance(dto, data)));
}

@ValidatorConstraint({ name: 'isSdkPayload' })
export class IsSdkPayloadConstraint implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    const type = (args.object as { type?: unknown }).type;
    return validateSdkPayloadWithDto(type, value).length === 0;
  }
  defaultMessage(args: ValidationArguments): string {
    const type = (args.object as { type?: unknown }).type;
    const issues = validateSdkPayloadWithDto(type, args.value);
    return `$property must be a valid ${String(type)} payload (${formatIssues(issues, 5)})`;
  }
}

/** On `data`: when the event's `type` is an SDK type, `data` must be the matching SDK request body. */
export function IsSdkPayload(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: IsSdkPayloadConstraint,
    });
}
