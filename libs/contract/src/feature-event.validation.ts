import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { FeatureEventDto } from './feature-event.dto';
import { ValidationIssue, flattenValidationErrors } from './validation-issues';

/** What class-validator says about a parsed JSON object. */
export interface DtoValidation {
  /** One entry per failed constraint; empty when the object is a valid event of a known type. */
  issues: ValidationIssue[];
  /** The only failure is `@IsIn(EVENT_TYPES)` on `type` (an unknown but otherwise valid type). */
  onlyUnknownType: boolean;
}

/**
 * Validates a parsed JSON object against FeatureEventDto with class-validator
 * (`validateSync(plainToInstance(FeatureEventDto, obj))`, default options: extra keys are ignored).
 * This is the declarative form of the contract; `parseEvent` uses the equivalent fast validator for its
 * verdict and this function for the wording of a rejection.
 */
export function validateFeatureEventWithDto(obj: Record<string, unknown>): DtoValidation {
  const errors = validateSync(plainToInstance(FeatureEventDto, obj));
  const issues = flattenValidationErrors(errors);
  const only = errors.length === 1 ? errors[0] : undefined;
  const onlyUnknownType =
    only !== undefined &&
    only.property === 'type' &&
    (only.children?.length ?? 0) === 0 &&
    Object.keys(only.constraints ?? {}).join(',') === 'isIn';
  return { issues, onlyUnknownType };
}
