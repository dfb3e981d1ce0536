import { ChildProcess, spawn, type StdioOptions } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

/**
 * Starts one of the apps as a real process with the given environment: compiled (dist/, which the int and
 * e2e tiers' jest globalSetup builds when a source is newer, scripts/ensure-built.js), as deployed, in about a
 * second. `fromSource`: through ts-node instead (apps/projector/src/startup.int-spec.ts keeps that path working), in 3-10 s.
 */
export function startApp(
  app: 'api' | 'projector',
  env: Record<string, string>,
  logTo?: string[],
  { fromSource = false }: { fromSource?: boolean } = {},
): ChildProcess {
  const entry = fromSource
    ? [
        '-r',
        'ts-node/register/transpile-only',
        '-r',
        'tsconfig-paths/register',
        join(ROOT, 'apps', app, 'src', 'main.ts'),
      ]
    : ['-r', join(ROOT, 'scripts', 'dist-paths.js'), join(ROOT, 'dist', 'apps', app, 'src', 'main.js')];
  const child = spawn(process.execPath, entry, {
    cwd: ROOT,
    env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const sink = (d: Buffer) => {
    if (logTo) logTo.push(d.toString());
    if (process.env.FLAGLENS_TEST_VERBOSE) process.stderr.write(`[${app}] ${d}`);
  };
  child.stdout?.on('data', sink);
  child.stderr?.on('data', sink);
  return child;
}

export async function stopApp(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
  timeoutMs = 20000,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/**
 * The node flags the product starts an app with (package.json `config.apiNodeOptions` /
 * `config.projectorNodeOptions`, as `npm start` and the image use them).
 */
export function appNodeOptions(app: 'api' | 'projector'): string[] {
  const key = `${app}NodeOptions`;
  const flags =
    process.env[`npm_package_config_${key}`] ??
    (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { config: Record<string, string> })
      .config[key];
  return flags.split(' ').filter(Boolean);
}

/**
 * `BENCH_CPU_PROFILE=<dir>` (bench and chaos runs): the started apps write V8 CPU profiles (`.cpuprofile`, one per
 * process, readable in Chrome DevTools) into `<dir>` when they stop. `BENCH_ALLOC_PROFILE=<dir>`: sampling
 * allocation profiles, collected objects included (scripts/alloc-profile.js). Either is summed by
 * `node scripts/profile-summary.js <file>`; with `BENCH_ALLOC_PROFILE_OLD=1`, only what outlived the young
 * generation (what the mark-compacts collect). `BENCH_GC_TRACE=<dir>`: each app runs with `--trace-gc`, its
 * standard output (V8's line per collection: heap sizes, pause, reason) written to `<dir>/<app>-<ms>.log`.
 */
function profilerFlags(): string[] {
  const cpu = process.env.BENCH_CPU_PROFILE;
  const alloc = process.env.BENCH_ALLOC_PROFILE;
  if (!cpu && !alloc) return [];
  return [
    '-r',
    join(ROOT, 'scripts', 'exit-on-sigterm.js'),
    ...(cpu ? ['--cpu-prof', `--cpu-prof-dir=${cpu}`] : []),
    ...(alloc ? ['-r', join(ROOT, 'scripts', 'alloc-profile.js')] : []),
  ];
}

/**
 * Starts one of the apps as the product runs it: compiled (`npm run build` first), with its node flags
 * (`appNodeOptions`). For the bench and the chaos run, which measure the real processes. `ownSession`: in a
 * session of its own (setsid), so that it is a scheduling group of its own under Linux's autogroups, as a
 * container is under its cgroup (bench/priority.ts); the caller must stop it, as a signal to its own group no
 * longer reaches it. `nodeArgs`: flags of Node's added after the app's own (e.g. `--trace-gc`).
 */
export function startBuiltApp(
  app: 'api' | 'projector',
  env: Record<string, string>,
  stdio: StdioOptions = ['ignore', 'ignore', 'inherit'],
  ownSession = false,
  nodeArgs: readonly string[] = [],
): ChildProcess {
  const gcTrace = process.env.BENCH_GC_TRACE;
  // the trace goes to standard output: to a file, unless the caller reads it
  const traceFile =
    gcTrace && Array.isArray(stdio) && stdio[1] === 'ignore'
      ? openSync(join(gcTrace, `${app}-${Date.now()}.log`), 'w')
      : undefined;
  if (traceFile !== undefined)
    stdio = [(stdio as unknown[])[0], traceFile, (stdio as unknown[])[2]] as StdioOptions;
  const child = spawn(
    process.execPath,
    [
      ...appNodeOptions(app),
      ...(gcTrace && !nodeArgs.includes('--trace-gc') ? ['--trace-gc'] : []),
      ...nodeArgs,
      ...profilerFlags(),
      '-r',
      join(ROOT, 'scripts', 'dist-paths.js'),
      join(ROOT, 'dist', 'apps', app, 'src', 'main.js'),
    ],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio, detached: ownSession },
  );
  if (traceFile !== undefined) closeSync(traceFile); // the child has its own descriptor
  return child;
}
