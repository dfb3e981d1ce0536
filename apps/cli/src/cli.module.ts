import { Module } from '@nestjs/common';
import { AppConfig, loadConfigOrExit } from '@flaglens/config';
import { CqrsModule } from '@nestjs/cqrs';
import { CliDatabase } from './cli-database';
import {
  DeadLettersCommand,
  DeadLettersListCommand,
  DeadLettersRedriveCommand,
  DeadLettersShowCommand,
} from './dead-letters/dead-letters.command';
import { RedriveDeadLettersHandler } from './dead-letters/redrive-dead-letters.command';
import { StatusCommand } from './status/status.command';
import { PublishCommand } from './commands/publish.command';
import { RebuildCommand } from './commands/rebuild.command';
import { SourceCommand, SourceDebeziumCommand, SourceUnleashCommand } from './source/source.command';
import {
  TokenCommand,
  TokenCreateCommand,
  TokenListCommand,
  TokenRevokeCommand,
} from './commands/token.command';

@Module({
  imports: [CqrsModule.forRoot()],
  providers: [
    { provide: AppConfig, useFactory: () => loadConfigOrExit() },
    CliDatabase,
    PublishCommand,
    TokenCommand,
    TokenCreateCommand,
    TokenListCommand,
    TokenRevokeCommand,
    RebuildCommand,
    StatusCommand,
    DeadLettersCommand,
    DeadLettersListCommand,
    DeadLettersShowCommand,
    DeadLettersRedriveCommand,
    RedriveDeadLettersHandler,
    SourceCommand,
    SourceDebeziumCommand,
    SourceUnleashCommand,
  ],
})
export class CliModule {}
