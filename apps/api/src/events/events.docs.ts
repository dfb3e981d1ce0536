import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** OpenAPI description of the response shapes (api-spec 2.1, 2.2, 4.1). Documentation only. */
export class TagDoc {
  @ApiProperty({ minLength: 2, maxLength: 50 }) value: string;
  @ApiProperty({ minLength: 2, maxLength: 50 }) type: string;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The hexadecimal color code for the tag type, as the event carried it',
    example: '#FFFFFF',
  })
  color?: string | null;
}

export class FeatureEventDoc {
  @ApiProperty({ type: 'integer', minimum: 1 }) id: number;
  @ApiProperty() type: string;
  @ApiProperty() createdBy: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: Number, nullable: true }) createdByUserId: number | null;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true }) data: object | null;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true }) preData: object | null;
  @ApiProperty({ type: [TagDoc], nullable: true }) tags: TagDoc[] | null;
  @ApiProperty({ type: String, nullable: true }) featureName: string | null;
  @ApiProperty({ type: String, nullable: true }) project: string | null;
  @ApiProperty({ type: String, nullable: true }) environment: string | null;
}

export class FeatureEventsResponseDoc {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, enum: [1] }) version: number;
  @ApiPropertyOptional() toggleName: string;
  @ApiProperty({ type: [FeatureEventDoc] }) events: FeatureEventDoc[];
  @ApiPropertyOptional({ type: 'integer' }) totalEvents: number;
}

export class SearchedEventDoc extends FeatureEventDoc {
  @ApiPropertyOptional({ type: String }) groupType?: string;
  @ApiPropertyOptional({ type: String }) groupId?: string;
  @ApiProperty({ description: "The event type's label, as the reference's event log shows it" })
  label: string;
  @ApiProperty({ description: 'What happened, in markdown, with links to the Unleash flaglens follows' })
  summary: string;
}

export class EventSearchResponseDoc {
  @ApiProperty({ type: [SearchedEventDoc] }) events: SearchedEventDoc[];
  @ApiProperty({ type: 'integer', minimum: 0, description: 'How many events match' }) total: number;
}

export class EventCreatorDoc {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() name: string;
}
