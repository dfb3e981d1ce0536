import { applyDecorators } from '@nestjs/common';
import {
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  ApiSecurity,
  ApiOperation,
  type ApiResponseOptions,
} from '@nestjs/swagger';

/**
 * The OpenAPI description every admin operation shares: how to authenticate, and the error envelope it
 * answers with (unleash-errors.ts). Documentation only: the guard and the error filter do the work.
 */

/** The name of the security scheme (main.ts registers it): the personal access token header. */
export const PAT_SCHEME = 'personalAccessToken';

export const PAT_SCHEME_DESCRIPTION =
  'A personal access token, sent as it is in the `Authorization` header: `user:<secret>` ' +
  '(`Bearer user:<secret>` is accepted too). Issue one with `npm run cli -- token create --user <id>`. ' +
  'Without the header: 401 AuthenticationRequired; an unknown, expired or revoked token: 401 UnauthorizedError. ' +
  'With UNLEASH_API_URL set, the personal access tokens, admin API tokens and session cookie of that Unleash ' +
  'work too: it is asked who they belong to.';

export class ErrorDetailDoc {
  @ApiProperty({ example: 'No project found' }) message: string;
  @ApiPropertyOptional({
    example: '/query/type',
    description: 'The refused query parameter (the event search)',
  })
  path?: string;
}

/** Unleash's error envelope (semantics §0.2), as `ApiError.toBody()` sends it. */
export class ErrorDoc {
  @ApiProperty({ format: 'uuid', description: 'The ID of the error instance (fresh on every answer)' })
  id: string;
  @ApiProperty({ example: 'NotFoundError', description: 'The name of the error kind' }) name: string;
  @ApiProperty({ example: 'No project found', description: 'A description of what went wrong' })
  message: string;
  @ApiProperty({ type: [ErrorDetailDoc], minItems: 1, description: 'The message again, as a list' })
  details: ErrorDetailDoc[];
  @ApiPropertyOptional({ example: '/auth/simple/login', description: 'AuthenticationRequired only' })
  path?: string;
  @ApiPropertyOptional({ example: 'password', description: 'AuthenticationRequired only' }) type?: string;
  @ApiPropertyOptional({ description: 'AuthenticationRequired only' }) defaultHidden?: boolean;
}

/** Unleash's answer to a client, backend or frontend token on an admin route: a message only. */
export class TokenTypeErrorDoc {
  @ApiProperty({ example: 'invalid token: expected a different token type for this endpoint' })
  message: string;
}

const error = (status: number, description: string): ApiResponseOptions => ({
  status,
  description,
  type: ErrorDoc,
});

/** The error answers every admin operation can give. */
const ERRORS: ApiResponseOptions[] = [
  error(
    400,
    'BadDataError: a malformed request (a path with an invalid percent-escape, a query parameter out of form)',
  ),
  error(
    401,
    'AuthenticationRequired: no `Authorization` header (nor an Unleash session); UnauthorizedError: the token is unknown, expired, revoked or not a personal access token',
  ),
  {
    status: 403,
    description:
      'a client, backend or frontend token of the Unleash flaglens follows (UNLEASH_API_URL), refused as Unleash refuses it',
    type: TokenTypeErrorDoc,
  },
  error(404, 'NotFoundError: no such resource, or one the caller may not see (answered alike)'),
  error(413, 'ContentTooLargeError: a request body over the bound (every operation is a read)'),
  error(500, 'UnknownError: an unexpected failure (the cause is in the log, never in the answer)'),
  error(
    503,
    'ServiceUnavailableError: the database, or the Unleash that must verify a credential it issued, did not answer in time; retry (`Retry-After`)',
  ),
];

export interface AdminOperation {
  /** As the reference system names it (reference/unleash-openapi-subset.json). */
  operationId: string;
  summary: string;
  description: string;
  deprecated?: boolean;
  /** The answer carries a weak ETag: a matching `If-None-Match` gets 304 without a body. */
  etag?: boolean;
}

/** An authenticated admin read: operationId, descriptions, the PAT scheme and the error answers. */
export function ApiAdminOperation(op: AdminOperation): MethodDecorator {
  return applyDecorators(
    ApiOperation({
      operationId: op.operationId,
      summary: op.summary,
      description: op.description,
      ...(op.deprecated ? { deprecated: true } : {}),
    }),
    ApiSecurity(PAT_SCHEME),
    ...(op.etag
      ? [ApiResponse({ status: 304, description: 'Not Modified: `If-None-Match` named the current ETag' })]
      : []),
    ...ERRORS.map((e) => ApiResponse(e)),
  );
}
