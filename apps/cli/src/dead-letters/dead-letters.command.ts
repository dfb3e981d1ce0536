import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CommandBus } from '@nestjs/cqrs';
import { CliDatabase } from '../cli-database';
import { DeadLettersReadModel } from '@flaglens/operations';
import { safeRawValue } from './safe-raw-value';
import { RedriveDeadLetters, type RedriveSummary } from './redrive-dead-letters.command';
import { AppConfig } from '@flaglens/config';
import { rebuildWithProgress } from '../commands/rebuild.command';
import { terminalJson, terminalText } from '../terminal-text';

interface ListFlags {
  reason?: string;
  json?: boolean;
  limit?: number;
}

function parseId(v: string, what = 'id'): number {
  if (!/^\d{1,18}$/.test(v)) throw new Error(`not a dead-letter ${what}: ${v}`);
  return Number(v);
}

@SubCommand({ name: 'list', description: 'List dead letters (oldest first)' })
export class DeadLettersListCommand extends CommandRunner {
  constructor(private readonly database: CliDatabase) {
    super();
  }

  async run(_: string[], flags: ListFlags): Promise<void> {
    try {
      const out = await new DeadLettersReadModel(await this.database.get()).list({
        reason: flags.reason,
        limit: flags.limit ?? 100,
      });
      if (flags.json) {
        process.stdout.write(terminalJson(out) + '\n');
        return;
      }
      if (out.length === 0) process.stdout.write('no dead letters\n');
      for (const r of out) {
        const state = r.redrivenAt
          ? `re-driven ${r.redrivenAt} (${r.redriveOutcome})`
          : r.redriveOutcome
            ? `pending; last re-drive: ${r.redriveOutcome}`
            : 'pending';
        process.stdout.write(
          terminalText(`${r.id}\t${r.topic}[${r.partition}]@${r.offset}\t${r.reasonCode}\t`) +
            terminalText(r.reason.slice(0, 120)) +
            terminalText(`\t${state}`) +
            '\n',
        );
      }
    } finally {
      await this.database.close();
    }
  }

  @Option({ flags: '--reason <code>', description: 'only this reason code (e.g. unknown-type)' })
  parseReason(v: string): string {
    return v;
  }

  @Option({ flags: '--json', description: 'print JSON' })
  parseJson(): boolean {
    return true;
  }

  @Option({ flags: '--limit <n>', description: 'at most n rows (default 100)' })
  parseLimit(v: string): number {
    if (!/^\d{1,6}$/.test(v) || Number(v) < 1) throw new Error(`--limit: not a positive number: ${v}`);
    return Number(v);
  }
}

@SubCommand({
  name: 'show',
  arguments: '<id>',
  description: 'Show one dead letter with its raw value (escaped, truncated)',
})
export class DeadLettersShowCommand extends CommandRunner {
  constructor(private readonly database: CliDatabase) {
    super();
  }

  async run([id]: string[], flags: { json?: boolean }): Promise<void> {
    try {
      const d = await new DeadLettersReadModel(await this.database.get()).get(parseId(id));
      if (!d) throw new Error(`no dead letter with id ${id}`);
      const { key, value, ...rest } = d;
      const shown = {
        ...rest,
        key: safeRawValue(key, 200),
        value: safeRawValue(value),
        valueBytes: value?.length ?? 0,
      };
      if (flags.json) {
        process.stdout.write(terminalJson(shown) + '\n');
        return;
      }
      for (const [k, v] of Object.entries(shown)) process.stdout.write(`${k}: ${terminalText(String(v))}\n`);
    } finally {
      await this.database.close();
    }
  }

  @Option({ flags: '--json', description: 'print JSON' })
  parseJson(): boolean {
    return true;
  }
}

@SubCommand({
  name: 'redrive',
  description:
    'Re-validate pending dead letters with the current configuration and project the valid ones exactly once',
})
export class DeadLettersRedriveCommand extends CommandRunner {
  constructor(
    private readonly commands: CommandBus,
    private readonly database: CliDatabase,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async run(
    _: string[],
    flags: { reason?: string; id?: number; json?: boolean; rebuild?: boolean; chunkBytes?: number },
  ): Promise<void> {
    let s: RedriveSummary;
    try {
      s = await this.commands.execute(
        new RedriveDeadLetters({ reason: flags.reason, id: flags.id }, 500, flags.chunkBytes),
      );
      if (!flags.json)
        process.stdout.write(
          `examined ${s.examined}: stored ${s.stored}, duplicates ${s.duplicate}, still invalid ${s.stillInvalid}` +
            `, refused by the database ${s.dbRejected}, already re-driven ${s.alreadyRedriven}` +
            `, after later events of their key (for a rebuild) ${s.needRebuild}\n`,
        );
    } finally {
      await this.database.close();
    }
    // with --json, one document on stdout: the summary, and the rebuild's result when one ran
    const json = (rebuild: unknown) =>
      flags.json && process.stdout.write(terminalJson(rebuild === undefined ? s : { ...s, rebuild }) + '\n');
    if (s.needRebuild === 0) return void json(undefined);
    if (flags.rebuild === false) {
      process.stderr.write(
        `${s.needRebuild} re-driven event(s) come before events of their key that are already applied: ` +
          'they take effect in their place at the next `rebuild`; until then answers leave them out\n',
      );
      return void json(undefined);
    }
    // applied now, they would not mean what the log means: a rebuild replays them in their place
    process.stderr.write(`rebuilding so that ${s.needRebuild} re-driven event(s) are applied in log order\n`);
    json(await rebuildWithProgress(this.config, { json: flags.json, silent: flags.json }));
  }

  @Option({
    flags: '--chunk-bytes <bytes>',
    description: 'hold at most this many bytes of dead letters in memory at once (default 32 MiB)',
  })
  parseChunkBytes(v: string): number {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error('--chunk-bytes takes a positive number of bytes');
    return n;
  }

  @Option({
    flags: '--no-rebuild',
    description:
      'do not rebuild for re-driven events that come before applied events of their key (the next rebuild applies them)',
  })
  parseNoRebuild(): boolean {
    return false;
  }

  @Option({ flags: '--reason <code>', description: 'only this reason code' })
  parseReason(v: string): string {
    return v;
  }

  @Option({ flags: '--id <id>', description: 'only this dead letter' })
  parseId(v: string): number {
    return parseId(v);
  }

  @Option({ flags: '--json', description: 'print the summary as JSON' })
  parseJson(): boolean {
    return true;
  }
}

@Command({
  name: 'dead-letters',
  description: 'Messages the projector could not apply: list, show, re-drive',
  subCommands: [DeadLettersListCommand, DeadLettersShowCommand, DeadLettersRedriveCommand],
})
export class DeadLettersCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.outputHelp();
  }
}
