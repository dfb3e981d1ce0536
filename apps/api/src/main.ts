import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger as NestLogger } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { AppConfig, loadConfigOrExit } from '@flaglens/config';
import { HttpMetrics } from '@flaglens/observability';
import { AppModule } from './app.module';
import { PAT_SCHEME, PAT_SCHEME_DESCRIPTION } from './common/api-docs';
import { CachedReads } from './reads/cached-reads';
import { ignoreRequestBodies, rejectBadUrl } from './common/fastify-edges';
import { API_SERVER_OPTIONS, tuneServer } from './common/server-options';
import { serveConsole } from './console/console-static';
import { securityHeaders } from './common/security-headers';

/**
 * The api runs on Fastify (not Express): its router and reply path cost a fraction of Express's per
 * request, and the reads are served from memory, so that per-request cost is what bounds req/s
 * (`npm run bench`: docs/performance.md).
 */
export function apiAdapter(): FastifyAdapter {
  return new FastifyAdapter({
    ...API_SERVER_OPTIONS,
    routerOptions: { ...API_SERVER_OPTIONS.routerOptions },
    // a malformed percent-escape in the path: 400 in the reference's envelope (it answers a stack trace)
    frameworkErrors: rejectBadUrl,
  });
}

export async function createApiApp(config: AppConfig): Promise<NestFastifyApplication> {
  const adapter = apiAdapter();
  // before Nest registers its middleware (NestFactory.create): one synchronous hook sets the security headers
  // (helmet's, computed once: common/security-headers.ts) and answers a cached caller without the Nest pipeline
  // nor its per-request logging when the answer is cached, or loaded by the route's loader (reads/cached-reads.ts);
  // anything else goes on
  const instance = adapter.getInstance();
  const security = securityHeaders();
  const hot: { reads?: CachedReads } = {}; // set once Nest has created it
  instance.addHook('onRequest', (req, reply, done) => {
    void reply.headers(security);
    const answered = hot.reads?.answer(req, reply);
    if (answered === true) return;
    if (answered instanceof Promise) void answered.then((sent) => sent || done());
    else done();
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger)); // JSON lines (nestjs-pino), LOG_LEVEL, credentials redacted
  const fastify = app.getHttpAdapter().getInstance();
  app.get(HttpMetrics).register(fastify); // times every request, 400s and 401s included
  ignoreRequestBodies(fastify); // every route is a GET: a body is read (bounded) and dropped
  const cachedReads = app.get(CachedReads);
  cachedReads.register(fastify);
  hot.reads = cachedReads;
  app.enableShutdownHooks();
  const doc = new DocumentBuilder()
    .setTitle('flaglens')
    .setDescription(
      'Read side of an Unleash-compatible feature-flag administration API, served from event-sourced projections.',
    )
    .setVersion('1')
    // the PAT header, applied to every admin operation (common/api-docs.ts): Swagger UI's "Authorize"
    // button sets it, and "Try it out" sends it
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'Authorization', description: PAT_SCHEME_DESCRIPTION },
      PAT_SCHEME,
    )
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
  tuneServer(app.getHttpServer());
}

if (require.main === module) void bootstrap();
