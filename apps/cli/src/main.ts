#!/usr/bin/env node
import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { CliModule } from './cli.module';

async function main(): Promise<void> {
  await CommandFactory.run(CliModule, {
    logger: ['error', 'warn'],
    errorHandler: (err) => {
      process.stderr.write(`flaglens: ${err.message}\n`);
      process.exit(1);
    },
    serviceErrorHandler: (err) => {
      process.stderr.write(`flaglens: ${err.message}\n`);
      process.exit(1);
    },
  });
}

void main();
