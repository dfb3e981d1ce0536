import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import helmet from '@fastify/helmet';
import { Logger as NestLogger } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { AppConfig, loadConfigOrExit } from '@flaglens/config';
import { HttpMetrics } from '@flaglens/observability';
import { AppModule } from './app.module';
import { ignoreRequestBodies, rejectBadUrl } from './common/fastify-edges';
import { serveConsole } from './console/console-static';

/**
 * The api runs on Fastify (not Express): its router and reply path cost a fraction of Express's per
 * request, and the reads are served from memory, so that per-request cost is what bounds req/s
 * (`npm run bench`: README, Performance).
 */
export function apiAdapter(): FastifyAdapter {
  return new FastifyAdapter({
    routerOptions: {
      // as the reference (Express): a trailing slash and the path's letter case do not matter
      ignoreTrailingSlash: true,
      caseSensitive: false,
      // flag names and project ids are not length-limited by the reference; Fastify's default is 100
      maxParamLength: 8_192,
    },
    // a slow or stuck client cannot hold a connection forever
    requestTimeout: 30_000,
    connectionTimeout: 60_000,
    // a malformed percent-escape in the path: 400 in the reference's envelope (it answers a stack trace)
    frameworkErrors: rejectBadUrl,
  });
}

export async function createApiApp(config: AppConfig): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), apiAdapter(), {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger)); // JSON lines (nestjs-pino), LOG_LEVEL, credentials redacted
  const fastify = app.getHttpAdapter().getInstance();
  app.get(HttpMetrics).register(fastify); // times every request, 400s and 401s included
  ignoreRequestBodies(fastify); // every route is a GET: a body is read (bounded) and dropped
  // secure defaults for a JSON api; Swagger UI at /docs needs its inline script and styles
  await app.register(helmet, { contentSecurityPolicy: false, crossOriginEmbedderPolicy: false });
  app.enableShutdownHooks();
  const doc = new DocumentBuilder()
    .setTitle('flaglens')
    .setDescription(
      'Read side of an Unleash-compatible feature-flag administration API, served from event-sourced projections.',
    )
    .setVersion('1')
    .build();
  SwaggerModule.setup('docs', app, () => SwaggerModule.createDocument(app, doc));
  // the web console (static files built by `npm run build`, their own strict CSP)
  await serveConsole(app, (m) => new NestLogger('Console').warn(m));
  return app;
}

/**
 * Where the api listens: every interface, IPv4 and IPv6; with FLAGLENS_AUTH=off (every caller is the
 * admin) loopback only: `localhost`, for which Fastify binds every address it resolves to (127.0.0.1,
 * and ::1 where the machine maps it).
 */
export function listenHost(config: AppConfig): string {
  return config.FLAGLENS_AUTH === 'off' ? 'localhost' : '::';
}

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit(); // fail fast with a message naming the variable
  const app = await createApiApp(config);
  await app.listen(config.PORT, listenHost(config));
  if (config.FLAGLENS_AUTH === 'off') {
    const bound = app
      .getHttpAdapter()
      .getInstance()
      .addresses()
      .map((a) => (a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`));
    new NestLogger('Api').warn(
      `FLAGLENS_AUTH=off: every request is served as the admin, so the api listens on loopback only (${bound.join(', ')})`,
    );
  }
  const server = app.getHttpServer();
  server.headersTimeout = 15_000;
  server.maxHeadersCount = 100;
}

if (require.main === module) void bootstrap();
