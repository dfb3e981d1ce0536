import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** OpenAPI description of the instance insights (api-spec 2.13). Documentation only. */
const DATE = { format: 'date-time', type: String, description: 'end of the described UTC day' } as const;
const WEEK = { description: 'ISO week-year, IYYY-IW (e.g. 2025-01 for the week of Monday 2024-12-30)' };

export class UserTrendDoc {
  @ApiProperty(DATE) date: string;
  @ApiProperty() total: number;
  @ApiProperty({ description: 'authored an event in the trailing 60 days (the stream has no logins)' })
  active: number;
  @ApiProperty() inactive: number;
}
export class FlagTrendDoc {
  @ApiProperty(DATE) date: string;
  @ApiProperty() total: number;
  @ApiProperty() active: number;
  @ApiProperty() stale: number;
  @ApiProperty() potentiallyStale: number;
}
export class ProjectFlagTrendDoc {
  @ApiProperty(WEEK) week: string;
  @ApiProperty() project: string;
  @ApiProperty(DATE) date: string;
  @ApiProperty() total: number;
  @ApiProperty() active: number;
  @ApiProperty() stale: number;
  @ApiProperty() potentiallyStale: number;
  @ApiProperty({ minimum: 0, maximum: 100, deprecated: true, description: 'use technicalDebt' })
  health: number;
  @ApiPropertyOptional({ minimum: 0, maximum: 100, description: '100 − health (Unleash 7+)' })
  technicalDebt: number;
  @ApiPropertyOptional({ description: 'days, one decimal (semantics §3.3), release flags as they are now' })
  timeToProduction?: number;
  @ApiPropertyOptional({ description: "members now; on the current week's rows only" }) users?: number;
}
export class MetricsSummaryTrendDoc {
  @ApiProperty(WEEK) week: string;
  @ApiProperty(DATE) date: string;
  @ApiProperty() project: string;
  @ApiProperty() totalRequests: number;
  @ApiProperty() totalYes: number;
  @ApiProperty() totalNo: number;
  @ApiProperty() totalApps: number;
  @ApiProperty() totalFlags: number;
  @ApiProperty() totalEnvironments: number;
}
export class EnvironmentTypeTrendDoc {
  @ApiProperty(DATE) date: string;
  @ApiProperty(WEEK) week: string;
  @ApiProperty() environmentType: string;
  @ApiProperty() totalUpdates: number;
}
export class LifecycleTrendDoc {
  @ApiProperty(WEEK) week: string;
  @ApiProperty(DATE) date: string;
  @ApiProperty() project: string;
  @ApiProperty({
    description: 'flags (as they are now) whose first production enable after creation fell in the week',
  })
  newProductionFlags: number;
}
export class CreationArchiveTrendDoc {
  @ApiProperty(WEEK) week: string;
  @ApiProperty(DATE) date: string;
  @ApiProperty() project: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    description: 'flags created in the week, by their current type (types with none left out)',
  })
  createdFlags: Record<string, number>;
  @ApiProperty({ description: 'flags archived in the week (and still archived)' }) archivedFlags: number;
}
export class InstanceInsightsDoc {
  @ApiProperty({ type: [UserTrendDoc] }) userTrends: UserTrendDoc[];
  @ApiProperty({ type: [FlagTrendDoc] }) flagTrends: FlagTrendDoc[];
  @ApiProperty({ type: [ProjectFlagTrendDoc] }) projectFlagTrends: ProjectFlagTrendDoc[];
  @ApiProperty({ type: [MetricsSummaryTrendDoc] }) metricsSummaryTrends: MetricsSummaryTrendDoc[];
  @ApiProperty({ type: [EnvironmentTypeTrendDoc] }) environmentTypeTrends: EnvironmentTypeTrendDoc[];
  @ApiProperty({ type: [LifecycleTrendDoc], description: 'Unleash 7+' }) lifecycleTrends: LifecycleTrendDoc[];
  @ApiProperty({ type: [CreationArchiveTrendDoc], description: 'Unleash 7+' })
  creationArchiveTrends: CreationArchiveTrendDoc[];
}
