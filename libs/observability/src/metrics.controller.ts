import {
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  Header,
  Inject,
  Injectable,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { timingSafeEqual, createHash } from 'node:crypto';
import { ApiExcludeController } from '@nestjs/swagger';
import { MetricsRegistry } from './metrics-registry';
import { Registry } from 'prom-client';

/** prom-client's text exposition format (what MetricsRegistry renders). */
const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

export const METRICS_TOKEN = Symbol('METRICS_TOKEN');

/** Compares a bearer credential with the configured token in constant time (hashes equalize lengths). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m) return false;
  const a = createHash('sha256').update(m[1].trim()).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

/** /metrics is open unless METRICS_TOKEN is set; then it needs `Authorization: Bearer <token>`. */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  constructor(@Inject(METRICS_TOKEN) private readonly token: string | undefined) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.token) return true;
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    if (bearerMatches(req.headers.authorization, this.token)) return true;
    throw new UnauthorizedException('metrics need a bearer token');
  }
}

@ApiExcludeController()
@Controller('metrics')
@UseGuards(MetricsTokenGuard)
export class MetricsController {
  constructor(private readonly metrics: MetricsRegistry) {}

  /** Served by both apps (the api on Fastify, the projector on Express): no adapter-specific reply. */
  @Get()
  @Header('Cache-Control', 'no-store')
  @Header('Content-Type', PROMETHEUS_CONTENT_TYPE)
  scrape(): Promise<string> {
    return this.metrics.render();
  }
}
