import { ApiProperty } from '@nestjs/swagger';

/** OpenAPI description of the lifecycle summary (Unleash 8.x Enterprise). Documentation only. */
export class LifecycleCategoryDoc {
  @ApiProperty({ description: 'flags that entered the stage more than 7 days ago' })
  flagsOlderThanWeek: number;
  @ApiProperty({ description: 'flags that entered the stage within the last 7 days' })
  newFlagsThisWeek: number;
}
export class LifecycleCategoriesDoc {
  @ApiProperty({ description: 'flags of type experiment' }) experimental: LifecycleCategoryDoc;
  @ApiProperty({ description: 'flags of any other type (the UI: "Other flags")' })
  permanent: LifecycleCategoryDoc;
  @ApiProperty({ description: 'flags of type release' }) release: LifecycleCategoryDoc;
}
export class LifecycleStageDoc {
  @ApiProperty() categories: LifecycleCategoriesDoc;
  @ApiProperty({
    description: 'median days flags spent in the stage before entering a later one (one decimal; none: 0)',
  })
  medianDaysHistorically: number;
  @ApiProperty({
    description: 'median days the flags now in the stage have been in it (one decimal; none: 0)',
  })
  medianDaysInCurrentStage: number;
  @ApiProperty({ description: 'flags, not archived, whose current lifecycle stage this is' })
  totalFlags: number;
}
export class LifecycleTrendsDoc {
  @ApiProperty({ description: 'lifecycle stage pre-live' }) develop: LifecycleStageDoc;
  @ApiProperty({ description: 'lifecycle stage live' }) production: LifecycleStageDoc;
  @ApiProperty({ description: 'lifecycle stage completed' }) cleanup: LifecycleStageDoc;
}
export class LifecycleInsightsDoc {
  @ApiProperty() lifecycleTrends: LifecycleTrendsDoc;
}
