#!/usr/bin/env node
import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CommandFactory } from 'nest-commander';
import { CliModule } from './cli.module';
import { TerminalLogger, terminalText } from './terminal-text';

/** The version of the package this CLI belongs to (run from the sources or from `dist/`). */
function packageVersion(from = __dirname): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'flaglens' && pkg.version) return pkg.version;
  }
  return 'unknown';
}

/** commander's own ends: help, version, a usage error (which commander has printed already). */
interface CommanderExit {
  code: string;
  exitCode: number;
}
const isCommanderExit = (err: unknown): err is CommanderExit =>
  typeof (err as CommanderExit)?.code === 'string' &&
  (err as CommanderExit).code.startsWith('commander.') &&
  typeof (err as CommanderExit).exitCode === 'number';

/** A failed command: its message, once, on stderr; exit 1. */
function fail(err: Error): never {
  process.stderr.write(`flaglens: ${terminalText(err.message)}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  // the program's name in usage lines (commander takes it from argv[1]), however it was started
  process.argv[1] = join(dirname(process.argv[1] ?? '.'), 'flaglens');
  await CommandFactory.run(CliModule, {
    logger: new TerminalLogger(['error', 'warn']),
    version: packageVersion(),
    // `--help` and `--version` end with exit code 0; a usage error with commander's (1): commander printed
    // the message (or the help) itself, so it is not printed again
    errorHandler: (err) => (isCommanderExit(err) ? process.exit(err.exitCode) : fail(err)),
    serviceErrorHandler: fail,
  });
}

void main();
