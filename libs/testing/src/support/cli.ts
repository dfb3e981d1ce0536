import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..', '..', '..');

/**
 * The operator CLI, compiled (dist/, built by the int and e2e tiers' jest globalSetup when a source is newer),
 * as `bin/flaglens` starts it: about a second a run, where ts-node took 3-10.
 */
const CLI = [join(ROOT, 'bin', 'flaglens.js')];

/**
 * Runs the operator CLI (`apps/cli`) as a real process with the given environment. `timeoutMs`: the process is
 * stopped (SIGTERM) after that long, and the error names the command and what it printed by then.
 */
export async function runCli(
  env: Record<string, string>,
  args: string[],
  { timeoutMs = 0 }: { timeoutMs?: number } = {},
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await promisify(execFile)(process.execPath, [...CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      timeout: timeoutMs,
    });
  } catch (e) {
    const failed = e as { killed?: boolean; stdout?: string; stderr?: string };
    if (!failed.killed || timeoutMs === 0) throw e;
    throw new Error(
      `flaglens ${args.join(' ')} did not end within ${timeoutMs} ms; it printed:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`,
    );
  }
}

/** Runs the operator CLI as `runCli` does, to its end whatever its exit code. */
export async function runCliToExit(
  env: Record<string, string>,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    return { code: 0, ...(await runCli(env, args)) };
  } catch (e) {
    const failed = e as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw e;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
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
  const child = spawn(process.execPath, [...CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
