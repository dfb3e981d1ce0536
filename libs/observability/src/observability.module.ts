import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';
import { MetricsController, MetricsTokenGuard, METRICS_TOKEN } from './metrics.controller';
import { MetricsRegistry } from './metrics-registry';

export interface ObservabilityOptions {
  app: 'api' | 'projector' | 'connector';
  logLevel: string;
  /** When set, /metrics needs `Authorization: Bearer <token>`. */
  metricsToken?: string;
}

/** Headers that carry credentials: never logged. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
];

/** Probes and scrapes are not logged. Middleware mounted on a path sees `url` stripped: `originalUrl` is whole. */
const quiet = (req: IncomingMessage & { originalUrl?: string }) =>
  /^\/(health|metrics)(\/|\?|$)/.test(req.originalUrl ?? req.url ?? '');

/** JSON logs (nestjs-pino) and /metrics (prom-client) for one app. */
@Module({})
export class ObservabilityModule {
  static forRoot(opts: ObservabilityOptions): DynamicModule {
    return {
      module: ObservabilityModule,
      global: true,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: {
            level: opts.logLevel,
            name: `flaglens-${opts.app}`,
            redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
            autoLogging: { ignore: quiet },
            // a request's log line names what is needed, not every header
            serializers: {
              req: (req: { method: string; url: string; id: unknown }) => ({
                id: req.id,
                method: req.method,
                url: req.url,
              }),
            },
          },
        }),
      ],
      controllers: [MetricsController],
      providers: [
        { provide: MetricsRegistry, useValue: new MetricsRegistry(opts.app) },
        { provide: METRICS_TOKEN, useValue: opts.metricsToken },
        MetricsTokenGuard,
      ],
      exports: [MetricsRegistry],
    };
  }
}
