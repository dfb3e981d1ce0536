import { ApiProperty } from '@nestjs/swagger';

/** OpenAPI description of the project status (Unleash 8.2.0's projectStatusSchema). Documentation only. */
export class ProjectResourcesDoc {
  @ApiProperty({ description: 'users with a project role, directly or through a group', minimum: 0 })
  members: number;
  @ApiProperty({ description: 'API tokens that name the project', minimum: 0 }) apiTokens: number;
  @ApiProperty({ description: 'segments of the project', minimum: 0 }) segments: number;
}
export class ActivityCountDoc {
  @ApiProperty({ example: '2026-11-22' }) date: string;
  @ApiProperty({ minimum: 0 }) count: number;
}
export class CurrentDoc {
  @ApiProperty({ minimum: 0 }) current: number;
}
export class StageWithAverageDoc {
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'average days flags spent in the stage; none: null',
  })
  averageDays: number | null;
  @ApiProperty({ description: 'flags, not archived, whose latest stage this is' }) currentFlags: number;
}
export class ArchivedStageDoc {
  @ApiProperty() currentFlags: number;
  @ApiProperty({ description: 'flags archived in the last 30 days (still archived)' }) last30Days: number;
}
export class LifecycleSummaryDoc {
  @ApiProperty() initial: StageWithAverageDoc;
  @ApiProperty() preLive: StageWithAverageDoc;
  @ApiProperty() live: StageWithAverageDoc;
  @ApiProperty() completed: StageWithAverageDoc;
  @ApiProperty() archived: ArchivedStageDoc;
}
export class StaleFlagsDoc {
  @ApiProperty({ minimum: 0, description: 'flags, not archived, stale or past their type’s lifetime' })
  total: number;
}
export class ProjectStatusDoc {
  @ApiProperty() resources: ProjectResourcesDoc;
  @ApiProperty({ type: [ActivityCountDoc], description: 'events of the project per UTC day, the last year' })
  activityCountByDate: ActivityCountDoc[];
  @ApiProperty() health: CurrentDoc;
  @ApiProperty({ description: '100 minus the health' }) technicalDebt: CurrentDoc;
  @ApiProperty() lifecycleSummary: LifecycleSummaryDoc;
  @ApiProperty() staleFlags: StaleFlagsDoc;
}
