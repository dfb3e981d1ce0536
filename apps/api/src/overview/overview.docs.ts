import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** OpenAPI description of the project overview (api-spec 2.12). Documentation only. */
export class OverviewStatsDoc {
  @ApiProperty({ description: 'days, one decimal; mean creation-to-production time of release flags' })
  avgTimeToProdCurrentWindow: number;
  @ApiProperty() createdCurrentWindow: number;
  @ApiProperty() createdPastWindow: number;
  @ApiProperty() archivedCurrentWindow: number;
  @ApiProperty() archivedPastWindow: number;
  @ApiProperty() projectActivityCurrentWindow: number;
  @ApiProperty() projectActivityPastWindow: number;
  @ApiProperty() projectMembersAddedCurrentWindow: number;
}

export class FeatureNamingDoc {
  @ApiProperty({ type: String, nullable: true }) pattern: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) example: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) description: string | null;
}

export class LinkTemplateDoc {
  @ApiPropertyOptional({ type: String, nullable: true }) title?: string | null;
  @ApiProperty({ description: 'may hold {{project}} and {{feature}} placeholders' }) urlTemplate: string;
}

export class ProjectEnvironmentDoc {
  @ApiProperty() environment: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'as set by default-strategy-updated',
  })
  defaultStrategy?: object;
}

export class FeatureTypeCountDoc {
  @ApiProperty() type: string;
  @ApiProperty() count: number;
}

export class OnboardingStatusDoc {
  @ApiProperty({
    enum: ['onboarding-started', 'first-flag-created', 'sdk-connected', 'onboarded'],
    description: 'sdk-connected only when the Unleash release followed is 8 or later (8.x answers it)',
  })
  status: string;
  @ApiPropertyOptional({ description: 'with first-flag-created: the earliest-created live flag' })
  feature?: string;
}

export class ProjectOverviewDoc {
  @ApiPropertyOptional({ type: OverviewStatsDoc }) stats: OverviewStatsDoc;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiPropertyOptional({ enum: ['open', 'protected', 'private'] }) mode: string;
  @ApiProperty({ type: Number, nullable: true }) featureLimit: number | null;
  @ApiPropertyOptional({ type: FeatureNamingDoc }) featureNaming: FeatureNamingDoc;
  @ApiPropertyOptional({
    type: [LinkTemplateDoc],
    description: 'templates of links added to new flags (Unleash 7+; [] until a project-updated sets them)',
  })
  linkTemplates: LinkTemplateDoc[];
  @ApiPropertyOptional() defaultStickiness: string;
  @ApiPropertyOptional({ minimum: 0, maximum: 100, deprecated: true, description: 'use technicalDebt' })
  health: number;
  @ApiPropertyOptional({ minimum: 0, maximum: 100, description: '100 − health' }) technicalDebt: number;
  @ApiPropertyOptional() favorite: boolean;
  @ApiPropertyOptional({ format: 'date-time', nullable: true, type: String }) updatedAt: string | null;
  @ApiPropertyOptional({ format: 'date-time', type: String, description: 'present only when archived' })
  archivedAt?: string;
  @ApiPropertyOptional({ format: 'date-time', nullable: true, type: String }) createdAt: string | null;
  @ApiProperty({ type: OnboardingStatusDoc }) onboardingStatus: OnboardingStatusDoc;
  @ApiPropertyOptional({ type: [ProjectEnvironmentDoc] }) environments: ProjectEnvironmentDoc[];
  @ApiPropertyOptional({ type: [FeatureTypeCountDoc] }) featureTypeCounts: FeatureTypeCountDoc[];
  @ApiPropertyOptional() members: number;
  @ApiProperty({ enum: [1] }) version: number;
}
