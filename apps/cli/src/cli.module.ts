import { Module } from '@nestjs/common';
import { AppConfig, loadConfigOrExit } from '@flaglens/config';
import { PublishCommand } from './commands/publish.command';

@Module({
  providers: [{ provide: AppConfig, useFactory: () => loadConfigOrExit() }, PublishCommand],
})
export class CliModule {}
