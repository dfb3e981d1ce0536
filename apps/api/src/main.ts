import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { AppConfig, loadConfigOrExit } from '@flaglens/config';
import { HttpMetrics } from '@flaglens/observability';
import { AppModule } from './app.module';
import helmet from 'helmet';
import { rejectMalformedPath } from './common/decode-path.middleware';

export async function createApiApp(config: AppConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger)); // JSON lines (nestjs-pino), LOG_LEVEL, credentials redacted
  app.disable('x-powered-by');
  app.use(app.get(HttpMetrics).middleware()); // first: times every request, 400s and 401s included
  // secure defaults for a JSON api; Swagger UI at /docs needs its inline script and styles
  app.use(helmet({ contentSecurityPolicy: false, crossOriginEmbedderPolicy: false }));
  app.use(rejectMalformedPath);
  app.enableShutdownHooks();
  const doc = new DocumentBuilder()
    .setTitle('flaglens')
    .setDescription(
      'Read side of an Unleash-compatible feature-flag administration API, served from event-sourced projections.',
    )
    .setVersion('1')
    .build();
  SwaggerModule.setup('docs', app, () => SwaggerModule.createDocument(app, doc));
  return app;
}

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit(); // fail fast with a message naming the variable
  const app = await createApiApp(config);
  const server = await app.listen(config.PORT);
  // a slow or stuck client cannot hold a connection forever
  server.requestTimeout = 30_000;
  server.headersTimeout = 15_000;
  server.maxHeadersCount = 100;
}

if (require.main === module) void bootstrap();
