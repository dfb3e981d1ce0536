import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { IdentityReadModel, PersonalAccessTokens } from '@flaglens/projections';
import { CliDatabase } from '../cli-database';
import { terminalJson, terminalText } from '../terminal-text';

interface CreateFlags {
  user?: string;
  expires?: Date;
  name?: string;
}

/**
 * `token create --user <id|username|email> [--expires <date>] [--name <n>]`: issues a personal access
 * token for a (projected, not deleted) user. The secret goes to stdout once, alone on its line, and is
 * never stored (only its SHA-256); the details go to stderr. Send it as `Authorization: user:...`.
 */
@SubCommand({ name: 'create', description: 'Issue a personal access token (the secret is printed once)' })
export class TokenCreateCommand extends CommandRunner {
  constructor(private readonly database: CliDatabase) {
    super();
  }

  async run(_: string[], flags: CreateFlags): Promise<void> {
    if (!flags.user) throw new Error('--user <id|username|email> is required');
    const db = await this.database.get();
    try {
      const user = await new IdentityReadModel(db).findUser(flags.user);
      if (!user) throw new Error(`no such user: ${flags.user} (users come from the event stream)`);
      if (flags.expires && flags.expires.getTime() <= Date.now())
        throw new Error('--expires must be in the future');
      const { id, secret } = await new PersonalAccessTokens(db).create(user.id, {
        name: flags.name,
        expiresAt: flags.expires,
      });
      process.stderr.write(
        `token ${id} for user ${user.id} (${terminalText(user.email ?? user.username ?? 'no name')}), ` +
          `expires ${flags.expires ? flags.expires.toISOString() : 'never'}; the secret is shown only now:\n`,
      );
      process.stdout.write(`${secret}\n`);
    } finally {
      await this.database.close();
    }
  }

  @Option({ flags: '-u, --user <user>', description: 'user id, username or e-mail', required: true })
  parseUser(v: string): string {
    return v;
  }

  @Option({ flags: '--expires <date>', description: 'expiry (RFC 3339 date or date-time); default never' })
  parseExpires(v: string): Date {
    const d = new Date(v);
    if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(d.getTime()))
      throw new Error(`--expires: not a date: ${v}`);
    return d;
  }

  @Option({ flags: '--name <name>', description: 'a label for the token' })
  parseName(v: string): string {
    return v;
  }
}

@SubCommand({ name: 'list', description: 'List personal access tokens (never their secrets)' })
export class TokenListCommand extends CommandRunner {
  constructor(private readonly database: CliDatabase) {
    super();
  }

  async run(_: string[], flags: { json?: boolean }): Promise<void> {
    const db = await this.database.get();
    try {
      const tokens = await new PersonalAccessTokens(db).list();
      if (flags.json) {
        process.stdout.write(terminalJson(tokens) + '\n');
        return;
      }
      if (tokens.length === 0) process.stdout.write('no tokens\n');
      for (const t of tokens) {
        const state = t.revokedAt
          ? `revoked ${t.revokedAt}`
          : t.expiresAt && new Date(t.expiresAt) <= new Date()
            ? `expired ${t.expiresAt}`
            : `active, expires ${t.expiresAt ?? 'never'}`;
        // user names come from events; token names from operators
        process.stdout.write(
          `${t.id}\tuser ${t.userId} (${terminalText(t.email ?? t.username ?? '?')})\t${terminalText(t.name ?? '')}\tcreated ${t.createdAt}\t${state}\n`,
        );
      }
    } finally {
      await this.database.close();
    }
  }

  @Option({ flags: '--json', description: 'print the list as JSON' })
  parseJson(): boolean {
    return true;
  }
}

@SubCommand({ name: 'revoke', arguments: '<id>', description: 'Revoke a personal access token by id' })
export class TokenRevokeCommand extends CommandRunner {
  constructor(private readonly database: CliDatabase) {
    super();
  }

  async run([id]: string[]): Promise<void> {
    if (!/^\d{1,15}$/.test(id)) throw new Error(`not a token id: ${id}`);
    const db = await this.database.get();
    try {
      const done = await new PersonalAccessTokens(db).revoke(Number(id));
      if (!done) throw new Error(`no active token with id ${id}`);
      process.stdout.write(`revoked token ${id}\n`);
    } finally {
      await this.database.close();
    }
  }
}

@Command({
  name: 'token',
  description: 'Personal access tokens for the api (Authorization: user:<secret>)',
  subCommands: [TokenCreateCommand, TokenListCommand, TokenRevokeCommand],
})
export class TokenCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.outputHelp();
  }
}
