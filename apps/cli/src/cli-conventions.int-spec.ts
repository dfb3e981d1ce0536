import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliToExit } from '@flaglens/testing/support/cli';

const VERSION = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** The CLI's conventions as an operator and a script meet them (the CLI as a process). */
describe('CLI conventions: help, version, errors (the CLI as a process)', () => {
  it('--help prints the usage on stdout and exits 0', async () => {
    const r = await runCliToExit({}, ['--help']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^Usage: flaglens \[options\] \[command\]/);
    expect(r.stdout).toMatch(/^ {2}status \[options\]/m);
    expect(r.stdout).not.toContain('(outputHelp)');
  });

  it('help of a command, and `help <command>`, exit 0', async () => {
    for (const args of [
      ['status', '--help'],
      ['help', 'status'],
      ['dead-letters', 'list', '--help'],
    ]) {
      const r = await runCliToExit({}, args);
      expect([args, r.code, r.stderr]).toEqual([args, 0, '']);
      expect(r.stdout).toMatch(/^Usage: flaglens /);
    }
  });

  it('--version (and -V) prints the package version alone and exits 0', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await runCliToExit({}, [flag]);
      expect([r.code, r.stdout, r.stderr]).toEqual([0, `${VERSION}\n`, '']);
    }
  });

  it('a usage error is printed once, on stderr, with exit code 1 and nothing on stdout', async () => {
    for (const args of [['bogus'], ['--bogus'], ['status', '--bogus'], ['status', '--stall-seconds', 'x']]) {
      const r = await runCliToExit({}, args);
      expect([args, r.code, r.stdout]).toEqual([args, 1, '']);
      const lines = r.stderr.trim().split('\n');
      expect([args, lines.length]).toEqual([args, 1]);
    }
  });

  it('a failing command prints its error once, prefixed, with exit code 1', async () => {
    const r = await runCliToExit({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/flaglens_no_such_db' }, [
      'dead-letters',
      'list',
      '--json',
    ]);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe('flaglens: database "flaglens_no_such_db" does not exist\n');
  });
});
