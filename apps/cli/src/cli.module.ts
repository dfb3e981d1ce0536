import { Module } from '@nestjs/common';
import { AppConfig, loadConfigOrExit } from '@flaglens/config';
import { PublishCommand } from './commands/publish.command';
import { SimulateCommand } from './commands/simulate.command';

@Module({
  providers: [{ provide: AppConfig, useFactory: () => loadConfigOrExit() }, PublishCommand, SimulateCommand],
})
export class CliModule {}
