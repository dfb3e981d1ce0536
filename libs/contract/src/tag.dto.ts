import { IsDefined, IsString, Length } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { TAG_TEXT_MAX_LENGTH, TAG_TEXT_MIN_LENGTH } from './event-limits';
import { IsWellFormedText } from './well-formed-text.validator';

/**
 * Tag (api-spec 2.2). Extra keys (the reference sends `color` on some events) are allowed and kept as
 * they are in the parsed event.
 */
@JSONSchema({ title: 'Tag', description: 'A tag related to the event (api-spec 2.2).' })
export class TagDto {
  @JSONSchema({ type: 'string', description: 'Tag value, 2 to 50 characters.' })
  @IsDefined()
  @IsString()
  @Length(TAG_TEXT_MIN_LENGTH, TAG_TEXT_MAX_LENGTH)
  @IsWellFormedText()
  value: string;

  @JSONSchema({ type: 'string', description: 'Tag type, 2 to 50 characters.' })
  @IsDefined()
  @IsString()
  @Length(TAG_TEXT_MIN_LENGTH, TAG_TEXT_MAX_LENGTH)
  @IsWellFormedText()
  type: string;
}
