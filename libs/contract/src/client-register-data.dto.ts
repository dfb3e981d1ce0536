import { IsArray, IsDefined, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_TEXT_LENGTH } from './event-limits';
import { IsSdkTimestamp } from './sdk-timestamp.validator';
import { IsWellFormedText } from './well-formed-text.validator';

/**
 * `data` of a `client-register` event: the body an SDK posts to `/api/client/register`. Only `appName`
 * is required; other keys (platformName, specVersion, ...) are allowed and kept.
 */
@JSONSchema({
  title: 'ClientRegisterData',
  description: '`data` of a `client-register` event: the SDK registration request body.',
})
export class ClientRegisterDataDto {
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

  @JSONSchema({ type: 'string', description: 'Environment the SDK reports for, when it says so.' })
  @IsOptional()
  @IsString()
  @Length(1, MAX_TEXT_LENGTH)
  @IsWellFormedText()
  environment?: string | null;

  @JSONSchema({ type: 'string', description: 'SDK name and version, e.g. `unleash-client-node:6.1.0`.' })
  @IsOptional()
  @IsString()
  @Length(1, MAX_TEXT_LENGTH)
  @IsWellFormedText()
  sdkVersion?: string | null;

  @JSONSchema({ type: 'array', items: { type: 'string' }, description: 'Strategies the SDK implements.' })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  strategies?: string[] | null;

  @JSONSchema({
    description: 'When the SDK started: RFC 3339 date-time with a time zone, or epoch milliseconds.',
  })
  @IsOptional()
  @IsSdkTimestamp()
  started?: string | number | null;

  @JSONSchema({ type: 'integer', description: 'Metrics interval of the SDK, in milliseconds.' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  interval?: number | null;
}
