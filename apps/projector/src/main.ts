import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { AppConfig, loadConfigOrExit } from '@flaglens/config';
import { ProjectorModule } from './projector.module';

export async function createProjectorApp(config: AppConfig): Promise<INestApplication> {
  const app = await NestFactory.create(ProjectorModule.forRoot(config), { logger: ['error', 'warn', 'log'] });
  app.enableShutdownHooks();
  return app;
}

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit(); // fail fast, before any connection is attempted
  const app = await createProjectorApp(config);
  await app.listen(config.PROJECTOR_PORT, '127.0.0.1');
}

if (require.main === module) void bootstrap();
