import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** Runs the operator CLI (`apps/cli`) as a real process with the given environment. */
export async function runCli(
  env: Record<string, string>,
  args: string[],
): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(
    process.execPath,
    [
      '-r',
      'ts-node/register/transpile-only',
      '-r',
      'tsconfig-paths/register',
      join(ROOT, 'apps/cli/src/main.ts'),
      ...args,
    ],
    { cwd: ROOT, env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true', ...env } },
  );
}

/** `token create` through the CLI; returns the secret (the only line on stdout). */
export async function createToken(
  env: Record<string, string>,
  user: string,
  extra: string[] = [],
): Promise<string> {
  const { stdout } = await runCli(env, ['token', 'create', '--user', user, ...extra]);
  const secret = stdout.trim();
  if (!/^user:[0-9a-f]{64}$/.test(secret)) throw new Error(`unexpected token output: ${stdout}`);
  return secret;
}

/** A running CLI process (for long-running commands); `output` collects stdout and stderr as they come. */
export interface CliProcess {
  child: ChildProcess;
  output: string[];
  /** Resolves with the exit code (or the signal's name) once the process ends. */
  exited: Promise<number | string>;
}

export function spawnCli(env: Record<string, string>, args: string[]): CliProcess {
  const child = spawn(
    process.execPath,
    [
      '-r',
      'ts-node/register/transpile-only',
      '-r',
      'tsconfig-paths/register',
      join(ROOT, 'apps/cli/src/main.ts'),
      ...args,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output: string[] = [];
  const sink = (d: Buffer) => {
    output.push(d.toString());
    if (process.env.FLAGLENS_TEST_VERBOSE) process.stderr.write(`[cli] ${d}`);
  };
  child.stdout?.on('data', sink);
  child.stderr?.on('data', sink);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return { child, output, exited };
}
