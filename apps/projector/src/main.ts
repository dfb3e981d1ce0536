import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { AppConfig, loadConfigOrExit } from '@flaglens/config';
import { ProjectorModule } from './projector.module';

export async function createProjectorApp(config: AppConfig): Promise<INestApplication> {
  const app = await NestFactory.create(ProjectorModule.forRoot(config), { bufferLogs: true });
  app.useLogger(app.get(Logger)); // JSON lines (nestjs-pino), LOG_LEVEL
  app.enableShutdownHooks();
  return app;
}

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit(); // fail fast, before any connection is attempted
  const app = await createProjectorApp(config);
  await app.listen(config.PROJECTOR_PORT, '127.0.0.1');
}

if (require.main === module) void bootstrap();
