import { Type } from 'class-transformer';
import {
  IsDefined,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { IsCountRecord } from './count-record.validator';
import { MAX_TEXT_LENGTH } from './event-limits';
import { HasOnlyObjectValues } from './object-values.validator';
import { IsSdkTimestamp } from './sdk-timestamp.validator';
import { HasNameKeys, IsWellFormedText } from './well-formed-text.validator';

/** Exposure counts of one flag in a metrics bucket. */
@JSONSchema({ title: 'ToggleMetrics', description: 'Exposure counts of one flag in a metrics bucket.' })
export class ToggleMetricsDto {
  @JSONSchema({ type: 'integer', description: 'Evaluations that returned enabled.' })
  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  yes: number;

  @JSONSchema({ type: 'integer', description: 'Evaluations that returned disabled.' })
  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  no: number;

  @JSONSchema({
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    description: 'Variant name -> number of times it was returned.',
  })
  @IsOptional()
  @IsCountRecord()
  @HasNameKeys()
  variants?: Record<string, number> | null;
}

/** The time window and per-flag counts of one metrics report. */
@JSONSchema({ title: 'ClientMetricsBucket', description: 'Time window and per-flag counts of one report.' })
export class ClientMetricsBucketDto {
  @JSONSchema({ description: 'Window start: RFC 3339 date-time with a time zone, or epoch milliseconds.' })
  @IsDefined()
  @IsSdkTimestamp()
  start: string | number;

  @JSONSchema({ description: 'Window end: RFC 3339 date-time with a time zone, or epoch milliseconds.' })
  @IsDefined()
  @IsSdkTimestamp()
  stop: string | number;

  @JSONSchema({ type: 'object', description: 'Flag name -> counts.' })
  @IsDefined()
  @IsObject()
  @HasOnlyObjectValues()
  @HasNameKeys()
  @ValidateNested({ each: true })
  @Type(() => ToggleMetricsDto)
  toggles: Map<string, ToggleMetricsDto>;
}

/**
 * `data` of a `client-metrics` event: the body an SDK posts to `/api/client/metrics`. Other keys
 * (platformName, specVersion, ...) are allowed and kept.
 */
@JSONSchema({
  title: 'ClientMetricsData',
  description: '`data` of a `client-metrics` event: the SDK metrics request body.',
})
export class ClientMetricsDataDto {
  @JSONSchema({ type: 'string', description: 'Name of the application using the SDK.' })
  @IsDefined()
  @IsString()
  @Length(1, MAX_TEXT_LENGTH)
  @IsWellFormedText()
  appName: string;

  @JSONSchema({ type: 'string', description: 'Instance of the application.' })
  @IsOptional()
  @IsString()
  @Length(1, MAX_TEXT_LENGTH)
  @IsWellFormedText()
  instanceId?: string | null;

  @JSONSchema({ type: 'string', description: 'Environment the metrics are for, when the SDK says so.' })
  @IsOptional()
  @IsString()
  @Length(1, MAX_TEXT_LENGTH)
  @IsWellFormedText()
  environment?: string | null;

  @JSONSchema({ description: 'The reported window and counts.' })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ClientMetricsBucketDto)
  bucket: ClientMetricsBucketDto;
}
