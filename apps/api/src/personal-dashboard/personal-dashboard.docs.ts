import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** OpenAPI description of the personal dashboard (Unleash 8.2.0's schemas). Documentation only. */
export class DashboardProjectDoc {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ minimum: 0, deprecated: true, description: 'use technicalDebt' }) health: number;
  @ApiProperty({ minimum: 0, maximum: 100 }) technicalDebt: number;
  @ApiProperty({ minimum: 0 }) memberCount: number;
  @ApiProperty({ minimum: 0 }) featureCount: number;
}
export class DashboardFlagDoc {
  @ApiProperty() name: string;
  @ApiProperty() project: string;
  @ApiProperty() type: string;
}
export class DashboardOwnerDoc {
  @ApiProperty({ enum: ['user', 'group', 'system'] }) ownerType: string;
  @ApiPropertyOptional() name?: string;
  @ApiPropertyOptional({ type: String, nullable: true }) email?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) imageUrl?: string | null;
}
export class DashboardAdminDoc {
  @ApiProperty() id: number;
  @ApiPropertyOptional() name?: string;
  @ApiPropertyOptional() username?: string;
  @ApiPropertyOptional() email?: string;
  @ApiPropertyOptional() imageUrl?: string;
}
export class PersonalDashboardDoc {
  @ApiProperty({
    type: [DashboardProjectDoc],
    description: 'the caller’s projects (by any role) and favourites',
  })
  projects: DashboardProjectDoc[];
  @ApiProperty({
    type: [DashboardFlagDoc],
    description: 'flags the caller created or favourited, newest first',
  })
  flags: DashboardFlagDoc[];
  @ApiProperty({ type: [DashboardOwnerDoc], description: 'every project’s owners (users), once each' })
  projectOwners: DashboardOwnerDoc[];
  @ApiProperty({ type: [DashboardAdminDoc] }) admins: DashboardAdminDoc[];
}
export class LatestEventDoc {
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: String, nullable: true }) summary: string | null;
  @ApiProperty() createdBy: string;
  @ApiProperty({ minimum: 1 }) id: number;
  @ApiProperty() createdByImageUrl: string;
}
export class OnboardingStatusDoc {
  @ApiProperty({ enum: ['onboarding-started', 'first-flag-created', 'sdk-connected', 'onboarded'] })
  status: string;
  @ApiPropertyOptional() feature?: string;
}
export class DashboardRoleDoc {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['custom', 'project'] }) type: string;
}
export class DashboardInsightsDoc {
  @ApiProperty({ type: Number, nullable: true }) avgHealthCurrentWindow: number | null;
  @ApiProperty({ type: Number, nullable: true }) avgHealthPastWindow: number | null;
  @ApiProperty({ minimum: 0 }) totalFlags: number;
  @ApiProperty({ minimum: 0 }) potentiallyStaleFlags: number;
  @ApiProperty({ minimum: 0 }) staleFlags: number;
  @ApiProperty({ minimum: 0 }) activeFlags: number;
  @ApiProperty({ minimum: 0, maximum: 100 }) technicalDebt: number;
  @ApiProperty({ minimum: 0, deprecated: true }) health: number;
}
export class PersonalProjectDetailsDoc {
  @ApiProperty({ type: [LatestEventDoc], description: 'the project’s 10 newest events' })
  latestEvents: LatestEventDoc[];
  @ApiProperty() onboardingStatus: OnboardingStatusDoc;
  @ApiProperty({ type: [DashboardOwnerDoc] }) owners: DashboardOwnerDoc[];
  @ApiProperty({ type: [DashboardRoleDoc], description: 'the caller’s roles in the project' })
  roles: DashboardRoleDoc[];
  @ApiProperty() insights: DashboardInsightsDoc;
}
