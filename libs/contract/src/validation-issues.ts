import type { ValidationError } from 'class-validator';

/** One failed constraint, with the dotted path of the property (`tags.0.value`). */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** At most this many issues are spelled out in a reason; the rest are counted. */
export const MAX_ISSUES_IN_REASON = 20;

/** Flattens class-validator's error tree into one issue per failed constraint, depth first. */
export function flattenValidationErrors(errors: readonly ValidationError[], prefix = ''): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const walk = (list: readonly ValidationError[], at: string): void => {
    for (const error of list) {
      const path =
        error.property === undefined || error.property === ''
          ? at
          : at
            ? `${at}.${error.property}`
            : error.property;
      for (const message of Object.values(error.constraints ?? {})) {
        issues.push({ path: path || '(event)', message });
      }
      if (error.children && error.children.length > 0) walk(error.children, path);
    }
  };
  walk(errors, prefix);
  return issues;
}

/** `id: id must not be less than 1; tags.0.value: value must be longer than or equal to 2 characters`. */
export function formatIssues(issues: readonly ValidationIssue[], max = MAX_ISSUES_IN_REASON): string {
  const shown = issues.slice(0, max).map((i) => `${i.path}: ${i.message}`);
  if (issues.length > max) shown.push(`... and ${issues.length - max} more`);
  return shown.join('; ');
}
