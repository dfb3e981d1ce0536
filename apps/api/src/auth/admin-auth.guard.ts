import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { authenticationRequired } from '../common/unleash-errors';

/**
 * Guards every /api/admin route. Until personal access tokens are projected (identity issue) it only
 * checks that credentials are presented, and only when FLAGLENS_AUTH=on.
 */
@Injectable()
export class AdminAuthGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.config.FLAGLENS_AUTH !== 'on') return true;
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    if (!req.headers.authorization) throw authenticationRequired();
    return true;
  }
}
