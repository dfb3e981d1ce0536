#!/usr/bin/env node
import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { CliModule } from './cli.module';
import { TerminalLogger, terminalText } from './terminal-text';

async function main(): Promise<void> {
  await CommandFactory.run(CliModule, {
    logger: new TerminalLogger(['error', 'warn']),
    errorHandler: (err) => {
      process.stderr.write(`flaglens: ${terminalText(err.message)}\n`);
      process.exit(1);
    },
    serviceErrorHandler: (err) => {
      process.stderr.write(`flaglens: ${terminalText(err.message)}\n`);
      process.exit(1);
    },
  });
}

void main();
