import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

export interface AuthenticatedRequest extends FastifyRequest {
  /** Set by AdminAuthGuard: the id of the user owning the token. */
  flaglensUserId?: number;
}

/** With FLAGLENS_AUTH=off every caller is the initial admin user. */
export const AUTH_OFF_USER_ID = 1;

/** The authenticated caller's user id (routes under /api/admin only). */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): number => {
  const id = ctx.switchToHttp().getRequest<AuthenticatedRequest>().flaglensUserId;
  if (id === undefined) throw new Error('CurrentUser used on a route the AdminAuthGuard does not cover');
  return id;
});
