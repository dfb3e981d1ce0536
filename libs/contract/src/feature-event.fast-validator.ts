import { length as classValidatorLength } from 'class-validator';
import { isCountRecord } from './count-record.validator';
import { isRfc3339DateTime } from './date-time';
import {
  MAX_TAGS_PER_EVENT,
  MAX_TEXT_LENGTH,
  MIN_EVENT_ID,
  TAG_TEXT_MAX_LENGTH,
  TAG_TEXT_MIN_LENGTH,
} from './event-limits';
import { CLIENT_METRICS_EVENT_TYPE, CLIENT_REGISTER_EVENT_TYPE, isKnownEventType } from './event-types';
import { isSdkTimestamp } from './sdk-timestamp.validator';
import { hasNameKeys, isNameKey, isWellFormedText } from './well-formed-text.validator';

/*
 * A hand-written validator that checks exactly the rules of FeatureEventDto (with ClientRegisterDataDto,
 * ClientMetricsDataDto and TagDto for their parts), about 20x faster than plainToInstance + validateSync.
 * parseEvent decides with it and asks class-validator only for the wording of a rejection.
 * feature-event.fast-validator.spec.ts proves with random valid and mutated events that both give the
 * same verdict; keep them in step when a rule changes.
 *
 * One deliberate difference: class-transformer skips keys named `__proto__` and `constructor` when it
 * copies a map (SDK `bucket.toggles`, `variants`), so class-validator never sees those entries; this
 * validator checks them like any other entry.
 */

/** The verdict of the fast validator. `problem` names the first failing property (dotted path). */
export type FastVerdict = { ok: true } | { ok: false; onlyUnknownType: boolean; problem: string };

const VALID: FastVerdict = Object.freeze({ ok: true });
const UNKNOWN_TYPE: FastVerdict = Object.freeze({ ok: false, onlyUnknownType: true, problem: 'type' });

function invalid(problem: string): FastVerdict {
  return { ok: false, onlyUnknownType: false, problem };
}

/** Characters that make validator.js's `isLength` differ from `String#length`. */
const LENGTH_SPECIAL = /[\uD800-\uDFFF]|\uFE0E|\uFE0F/;
/** Any surrogate code unit: only then can a string hold a lone one. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** No lone surrogate (`@IsWellFormedText`), checked only when a surrogate is there at all. */
const wellFormed = (s: string): boolean => !SURROGATE.test(s) || isWellFormedText(s);

/** class-validator's `@Length(min, max)` on a string, without its regexes for plain text. */
function hasLength(s: string, min: number, max: number): boolean {
  const n = s.length;
  if (n < min) return false; // validator.js never counts more than String#length
  if (n <= max && !LENGTH_SPECIAL.test(s)) return true;
  return classValidatorLength(s, min, max);
}

function isText(v: unknown, min: number, max: number): boolean {
  return typeof v === 'string' && hasLength(v, min, max) && wellFormed(v);
}

function isAbsent(v: unknown): boolean {
  return v === null || v === undefined;
}

function isOptionalText(v: unknown): boolean {
  return (
    v === null ||
    v === undefined ||
    (typeof v === 'string' && hasLength(v, 1, MAX_TEXT_LENGTH) && wellFormed(v))
  );
}

/** class-validator's `@IsObject()`: not null, not an array. */
function isObjectValue(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function checkTags(tags: unknown): string | null {
  if (!Array.isArray(tags)) return 'tags';
  if (tags.length > MAX_TAGS_PER_EVENT) return 'tags';
  for (let i = 0; i < tags.length; i++) {
    const tag: unknown = tags[i];
    if (!isObjectValue(tag)) return `tags.${i}`;
    if (!isText(tag.value, TAG_TEXT_MIN_LENGTH, TAG_TEXT_MAX_LENGTH)) return `tags.${i}.value`;
    if (!isText(tag.type, TAG_TEXT_MIN_LENGTH, TAG_TEXT_MAX_LENGTH)) return `tags.${i}.type`;
  }
  return null;
}

/** ClientRegisterDataDto. */
function checkClientRegister(d: Record<string, unknown>): string | null {
  if (!isText(d.appName, 1, MAX_TEXT_LENGTH)) return 'data.appName';
  if (!isOptionalText(d.instanceId)) return 'data.instanceId';
  if (!isOptionalText(d.environment)) return 'data.environment';
  if (!isOptionalText(d.sdkVersion)) return 'data.sdkVersion';
  const strategies = d.strategies;
  if (!isAbsent(strategies)) {
    if (!Array.isArray(strategies)) return 'data.strategies';
    for (const s of strategies) if (typeof s !== 'string') return 'data.strategies';
  }
  if (!isAbsent(d.started) && !isSdkTimestamp(d.started)) return 'data.started';
  if (!isAbsent(d.interval) && !isCount(d.interval)) return 'data.interval';
  return null;
}

/** ClientMetricsDataDto, ClientMetricsBucketDto, ToggleMetricsDto. */
function checkClientMetrics(d: Record<string, unknown>): string | null {
  if (!isText(d.appName, 1, MAX_TEXT_LENGTH)) return 'data.appName';
  if (!isOptionalText(d.instanceId)) return 'data.instanceId';
  if (!isOptionalText(d.environment)) return 'data.environment';
  const bucket = d.bucket;
  if (!isObjectValue(bucket)) return 'data.bucket';
  if (!isSdkTimestamp(bucket.start)) return 'data.bucket.start';
  if (!isSdkTimestamp(bucket.stop)) return 'data.bucket.stop';
  const toggles = bucket.toggles;
  if (!isObjectValue(toggles)) return 'data.bucket.toggles';
  for (const name of Object.keys(toggles)) {
    if (!isNameKey(name)) return 'data.bucket.toggles';
    const t = toggles[name];
    if (!isObjectValue(t)) return `data.bucket.toggles.${name}`;
    if (!isCount(t.yes)) return `data.bucket.toggles.${name}.yes`;
    if (!isCount(t.no)) return `data.bucket.toggles.${name}.no`;
    if (!isAbsent(t.variants) && (!isCountRecord(t.variants) || !hasNameKeys(t.variants)))
      return `data.bucket.toggles.${name}.variants`;
  }
  return null;
}

/**
 * Checks a parsed JSON object against the event contract. `onlyUnknownType` is true when the one and
 * only problem is a `type` outside api-spec part 6 (a non-empty string of at most 255 characters).
 */
export function fastValidateEvent(o: Record<string, unknown>): FastVerdict {
  const id = o.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < MIN_EVENT_ID) return invalid('id');
  if (!isRfc3339DateTime(o.createdAt)) return invalid('createdAt');
  const type = o.type;
  if (typeof type !== 'string' || !hasLength(type, 1, MAX_TEXT_LENGTH) || !wellFormed(type))
    return invalid('type');
  if (!isText(o.createdBy, 1, MAX_TEXT_LENGTH)) return invalid('createdBy');
  const userId = o.createdByUserId;
  if (!isAbsent(userId) && (typeof userId !== 'number' || !Number.isSafeInteger(userId))) {
    return invalid('createdByUserId');
  }
  if (!isOptionalText(o.environment)) return invalid('environment');
  if (!isOptionalText(o.project)) return invalid('project');
  if (!isOptionalText(o.featureName)) return invalid('featureName');
  const data = o.data;
  if (type === CLIENT_METRICS_EVENT_TYPE || type === CLIENT_REGISTER_EVENT_TYPE) {
    if (!isObjectValue(data)) return invalid('data');
    const problem = type === CLIENT_METRICS_EVENT_TYPE ? checkClientMetrics(data) : checkClientRegister(data);
    if (problem !== null) return invalid(problem);
  } else if (!isAbsent(data) && !isObjectValue(data)) {
    return invalid('data');
  }
  if (!isAbsent(o.preData) && !isObjectValue(o.preData)) return invalid('preData');
  if (!isAbsent(o.tags)) {
    const problem = checkTags(o.tags);
    if (problem !== null) return invalid(problem);
  }
  if (!isOptionalText(o.groupType)) return invalid('groupType');
  if (!isOptionalText(o.groupId)) return invalid('groupId');
  return isKnownEventType(type) ? VALID : UNKNOWN_TYPE;
}
