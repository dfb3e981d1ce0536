import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AuthenticatedRequest } from './current-user.decorator';
import { Callers } from './callers';

/**
 * Guards every /api/admin route (registered globally; `/health`, `/docs`, `/schemas` stay open): the caller
 * (Callers, which says who is accepted and how each refusal is answered) is attached to the request for
 * `@CurrentUser()`.
 */
@Injectable()
export class AdminAuthGuard implements CanActivate {
  constructor(private readonly callers: Callers) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // the matched route's pattern, not the raw path: routing ignores letter case (as the reference's)
    if (!(req.routeOptions.url ?? '').startsWith('/api/admin')) return true;
    if (req.flaglensUserId !== undefined) return true; // already authenticated (guard applied twice)
    req.flaglensUserId = await this.callers.resolve(req);
    return true;
  }
}
