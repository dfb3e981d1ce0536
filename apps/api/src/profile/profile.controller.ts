import { Controller, Get, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AS_OF_QUERY_DOC } from '../common/as-of';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentUser } from '../auth/current-user.decorator';
import { ApiAdminOperation } from '../common/api-docs';
import { answerRead } from '../reads/read-route';
import { PROFILE_READ } from './get-profile.query';

/** OpenAPI description of the profile (api-spec 2.3, 2.11). Documentation only. */
class RoleDoc {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'root, root-custom, project or custom' }) type: string;
  @ApiPropertyOptional({ type: String, nullable: true }) description: string | null;
}
class ProfileGroupDoc {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: Number, nullable: true, description: 'root role id given to its members' })
  rootRole: number | null;
  @ApiProperty() description: string;
  @ApiProperty({ type: [String] }) mappingsSSO: string[];
  @ApiProperty({ description: 'who added the caller to the group (as the reference answers it)' })
  createdBy: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'when the caller was added to the group (as the reference answers it)',
  })
  createdAt: string | null;
  @ApiProperty({ type: String, nullable: true }) scimId: string | null;
}
class ProfileDoc {
  @ApiProperty({ type: [String], description: 'sorted ascending; archived projects left out' })
  projects: string[];
  @ApiProperty({ type: [ProfileGroupDoc], description: "the caller's groups, by id (Unleash 8.x)" })
  groups: ProfileGroupDoc[];
  @ApiProperty({ type: RoleDoc }) rootRole: RoleDoc;
  @ApiProperty({ type: [String] }) subscriptions: string[];
  @ApiProperty({ type: [Object], description: 'deprecated; always empty' }) features: object[];
  @ApiProperty({
    description:
      'whether the caller has a local password (Unleash 8.x); always true: no event says (deviations)',
  })
  canChangePassword: boolean;
}

@ApiTags('Users')
@Controller()
export class ProfileController {
  constructor(private readonly queries: QueryBus) {}

  @Get(PROFILE_READ.path)
  @ApiAdminOperation({
    operationId: 'getProfile',
    summary: 'Get your own user profile',
    description:
      "The calling user's root role, the projects they are a member of (sorted, archived ones left out) and their subscriptions.",
  })
  @ApiOkResponse({ type: ProfileDoc })
  @ApiQuery(AS_OF_QUERY_DOC)
  async profile(
    @Req() req: FastifyRequest,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    await answerRead(this.queries, PROFILE_READ, req, userId, res);
  }
}
