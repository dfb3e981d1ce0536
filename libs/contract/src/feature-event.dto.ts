import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
  ValidationArguments,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { RFC3339_DATE_TIME_EXAMPLE, RFC3339_DATE_TIME_PATTERN } from './date-time';
import { MAX_EVENT_ID, MAX_TAGS_PER_EVENT, MAX_TEXT_LENGTH, MIN_EVENT_ID } from './event-limits';
import { EVENT_TYPES } from './event-types';
import { IsSdkPayload, isSdkEventType } from './sdk-payload.validator';
import { TagDto } from './tag.dto';
import { IsWellFormedText } from './well-formed-text.validator';

/** Message of the RFC 3339 check (the pattern itself is unreadable in a dead-letter reason). */
export const CREATED_AT_MESSAGE = `$property must be an RFC 3339 date-time with a time zone (e.g. ${RFC3339_DATE_TIME_EXAMPLE})`;

/** `@IsIn`'s own message would list all 179 types. */
function unknownTypeMessage(args: ValidationArguments): string {
  return `unknown event type ${JSON.stringify(args.value) ?? String(args.value)}`;
}

function dataObjectMessage(args: ValidationArguments): string {
  const type = (args.object as { type?: unknown }).type;
  return isSdkEventType(type)
    ? `$property must be an object (the SDK request body of a ${String(type)} event)`
    : '$property must be an object';
}

/**
 * A feature event as it travels on the topic (api-spec 2.1): the contract of every message value.
 *
 * - Required: `id`, `createdAt`, `type`, `createdBy` (present and not null).
 * - Nullable: every other field. A missing nullable key means null (producers may leave them out).
 * - `groupType`, `groupId` (Unleash 7+'s transaction group) are nullable text like `project`.
 * - Extra top-level keys are ignored (not an error, and not kept).
 * - `type` must be one of the 146 types of api-spec part 6. `parseEvent` can accept other types when
 *   asked (`allowUnknownTypes`); the DTO itself always says "unknown".
 * - For `client-register` and `client-metrics` events, `data` is the SDK request body and must satisfy
 *   `ClientRegisterDataDto` / `ClientMetricsDataDto`.
 *
 * Text limits (`MAX_TEXT_LENGTH`, 255 characters) and the tag count (1000) are ours; the other limits
 * are the spec's.
 */
@JSONSchema({
  title: 'FeatureEvent',
  description:
    'One audit event of the feature-flag service (api-spec 2.1): the value of every message on the events topic.',
})
export class FeatureEventDto {
  @JSONSchema({
    type: 'integer',
    description: 'Event id: a natural number (>= 1), increasing; a safe integer (<= 2^53 - 1).',
  })
  @IsDefined()
  @IsInt()
  @Min(MIN_EVENT_ID)
  @Max(MAX_EVENT_ID)
  id: number;

  @JSONSchema({
    type: 'string',
    format: 'date-time',
    description:
      'When the event happened: RFC 3339 date-time with a time zone designator (Z or ±hh:mm), a real calendar date, year 1000-2999.',
  })
  @IsDefined()
  @IsString()
  @IsISO8601({ strict: true, strictSeparator: true })
  @Matches(RFC3339_DATE_TIME_PATTERN, { message: CREATED_AT_MESSAGE })
  createdAt: string;

  @JSONSchema({ type: 'string', description: 'Event type: one of the values of api-spec part 6.' })
  @IsDefined()
  @IsString()
  @Length(1, MAX_TEXT_LENGTH)
  @IsIn(EVENT_TYPES, { message: unknownTypeMessage })
  @IsWellFormedText()
  type: string;

  @JSONSchema({
    type: 'string',
    description:
      'The user (e-mail, user name, token name or system user) that caused the event; 1 to 255 characters.',
  })
  @IsDefined()
  @IsString()
  @Length(1, MAX_TEXT_LENGTH)
  @IsWellFormedText()
  createdBy: string;

  @JSONSchema({
    type: 'integer',
    description: 'Id of that user. The reference uses -1337 for the system user and -42 for admin tokens.',
  })
  @IsOptional()
  @IsInt()
  @Min(-Number.MAX_SAFE_INTEGER)
  @Max(Number.MAX_SAFE_INTEGER)
  createdByUserId: number | null;

  @JSONSchema({ type: 'string', description: 'Environment concerned, if any; 1 to 255 characters.' })
  @IsOptional()
  @IsString()
  @Length(1, MAX_TEXT_LENGTH)
  @IsWellFormedText()
  environment: string | null;

  @JSONSchema({ type: 'string', description: 'Project concerned, if any; 1 to 255 characters.' })
  @IsOptional()
  @IsString()
  @Length(1, MAX_TEXT_LENGTH)
  @IsWellFormedText()
  project: string | null;

  @JSONSchema({ type: 'string', description: 'Flag concerned, if any; 1 to 255 characters.' })
  @IsOptional()
  @IsString()
  @Length(1, MAX_TEXT_LENGTH)
  @IsWellFormedText()
  featureName: string | null;

  @JSONSchema({
    type: 'object',
    description:
      'Extra data, such as flag state or segment configuration (a JSON object, not an array). For client-register and client-metrics events: the SDK request body, required.',
  })
  @ValidateIf(
    (event: FeatureEventDto, value: unknown) =>
      (value !== null && value !== undefined) || isSdkEventType(event.type),
  )
  @IsObject({ message: dataObjectMessage })
  @IsSdkPayload()
  data: Record<string, unknown> | null;

  @JSONSchema({
    type: 'object',
    description: 'State of the subject before the event (a JSON object, not an array).',
  })
  @IsOptional()
  @IsObject()
  preData: Record<string, unknown> | null;

  @JSONSchema({ type: 'array', description: 'Tags related to the event; at most 1000.' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_TAGS_PER_EVENT)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => TagDto)
  tags: TagDto[] | null;

  @JSONSchema({
    type: 'string',
    description:
      'Unleash 7+: the kind of transaction that wrote this event with others (e.g. transaction, change-request), if any; 1 to 255 characters. Omitted from answers when null.',
  })
  @IsOptional()
  @IsString()
  @Length(1, MAX_TEXT_LENGTH)
  @IsWellFormedText()
  groupType: string | null;

  @JSONSchema({
    type: 'string',
    description:
      'Unleash 7+: the id of that transaction (e.g. a ULID), if any; 1 to 255 characters. Omitted from answers when null.',
  })
  @IsOptional()
  @IsString()
  @Length(1, MAX_TEXT_LENGTH)
  @IsWellFormedText()
  groupId: string | null;
}
