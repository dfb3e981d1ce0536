import { Controller, Get, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentUser } from '../auth/current-user.decorator';
import { ApiAdminOperation } from '../common/api-docs';
import { sendJson } from '../common/json-body';
import { GetProfileQuery } from './get-profile.query';

/** OpenAPI description of the profile (api-spec 2.3, 2.11). Documentation only. */
class RoleDoc {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'root, root-custom, project or custom' }) type: string;
  @ApiPropertyOptional({ type: String, nullable: true }) description: string | null;
}
class ProfileDoc {
  @ApiProperty({ type: [String], description: 'sorted ascending; archived projects left out' })
  projects: string[];
  @ApiProperty({ type: RoleDoc }) rootRole: RoleDoc;
  @ApiProperty({ type: [String] }) subscriptions: string[];
  @ApiProperty({ type: [Object], description: 'deprecated; always empty' }) features: object[];
}

@ApiTags('Users')
@Controller('api/admin/user')
export class ProfileController {
  constructor(private readonly queries: QueryBus) {}

  @Get('profile')
  @ApiAdminOperation({
    operationId: 'getProfile',
    summary: 'Get your own user profile',
    description:
      "The calling user's root role, the projects they are a member of (sorted, archived ones left out) and their subscriptions.",
  })
  @ApiOkResponse({ type: ProfileDoc })
  async profile(@CurrentUser() userId: number, @Res() res: FastifyReply): Promise<void> {
    const body = await this.queries.execute(new GetProfileQuery(userId));
    await sendJson(res, body);
  }
}
