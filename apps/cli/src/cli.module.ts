import { Module } from '@nestjs/common';
import { AppConfig, loadConfigOrExit } from '@flaglens/config';
import { CliDatabase } from './cli-database';
import { PublishCommand } from './commands/publish.command';
import { SimulateCommand } from './commands/simulate.command';
import { RebuildCommand } from './commands/rebuild.command';
import {
  TokenCommand,
  TokenCreateCommand,
  TokenListCommand,
  TokenRevokeCommand,
} from './commands/token.command';

@Module({
  providers: [
    { provide: AppConfig, useFactory: () => loadConfigOrExit() },
    CliDatabase,
    PublishCommand,
    TokenCommand,
    TokenCreateCommand,
    TokenListCommand,
    TokenRevokeCommand,
    SimulateCommand,
    RebuildCommand,
  ],
})
export class CliModule {}
