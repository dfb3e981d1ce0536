import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { AppConfig, EXIT_CONFIG, loadConfigOrExit } from '@flaglens/config';
import { LiveProjector } from './live-projector.service';
import { ProjectorModule } from './projector.module';

/** The projector's Nest app; its health and metrics port runs on Fastify, as the api does. */
export async function createProjectorApp(config: AppConfig): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    ProjectorModule.forRoot(config),
    new FastifyAdapter(),
    {
      bufferLogs: true,
    },
  );
  app.useLogger(app.get(Logger)); // JSON lines (nestjs-pino), LOG_LEVEL
  app.enableShutdownHooks();
  return app;
}

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit(); // fail fast, before any connection is attempted
  const app = await createProjectorApp(config);
  // a topic whose messages show it cannot be projected correctly stops the projector, before anything of it
  // is projected, with the reason and the fix (logged): a restart would only meet the same messages
  app.get(LiveProjector).whenRefused(() => {
    void app.close().finally(() => process.exit(EXIT_CONFIG));
  });
  await app.listen(config.PROJECTOR_PORT, config.PROJECTOR_HOST);
}

if (require.main === module) void bootstrap();
