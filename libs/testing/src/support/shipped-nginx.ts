import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './http';
import { waitFor } from './wait-for';

const SHIPPED = join(__dirname, '..', '..', '..', '..', 'deploy', 'nginx');

export interface ShippedNginx {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** nginx's stderr so far */
  output: string[];
  /** One line per request, `<upstream> <method> <uri> <status> <args>`, when started with `upstreamLog`. */
  upstreamLog(): { backend: string; method: string; uri: string; status: number; args: string }[];
  stop(): Promise<void>;
}

/**
 * The shipped nginx recipe (deploy/nginx) in a real nginx under `dir`, with only the two upstreams' servers,
 * the port and the worker count replaced (and, with `upstreamLog`, an access log naming the upstream of each
 * request). Fails clearly when nginx is not installed.
 */
export async function startShippedNginx(
  dir: string,
  upstreams: { flaglens: number; unleash: number },
  o: { upstreamLog?: boolean } = {},
): Promise<ShippedNginx> {
  if (spawnSync('sh', ['-c', 'command -v nginx']).status !== 0)
    throw new Error('nginx is not installed: apt-get install nginx (.ci/run installs it)');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const log = join(dir, 'upstream.log');
  writeFileSync(join(dir, 'flaglens-routes.conf'), readFileSync(join(SHIPPED, 'flaglens-routes.conf')));
  let conf = readFileSync(join(SHIPPED, 'nginx.conf'), 'utf8')
    .replace('server flaglens-api:4242;', `server 127.0.0.1:${upstreams.flaglens};`)
    .replace('server unleash:4242;', `server 127.0.0.1:${upstreams.unleash};`)
    .replace('listen 8080;', `listen 127.0.0.1:${port};`)
    .replace('worker_processes auto;', 'worker_processes 1;');
  if (o.upstreamLog)
    conf = conf.replace(
      'http {',
      `http {\n    log_format upstream '$flaglens_backend $request_method $uri $status $args';\n` +
        `    access_log ${log} upstream;`,
    );
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const nginx: ChildProcess = spawn(
    'nginx',
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', `daemon off; pid ${dir}/nginx.pid; error_log stderr;`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output: string[] = [];
  nginx.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor('nginx up', async () => (await fetch(`${url}/health`).catch(() => null)) !== null, {
    timeoutMs: 20000,
  }).catch((e: Error) => {
    nginx.kill('SIGKILL');
    throw new Error(`${e.message}\nnginx: ${output.join('')}`);
  });
  return {
    url,
    output,
    upstreamLog: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [backend, method, uri, status, args] = l.split(' ');
          return { backend, method, uri, status: Number(status), args };
        }),
    stop: async () => {
      if (nginx.exitCode === null) {
        const exited = new Promise((r) => nginx.once('exit', r));
        nginx.kill('SIGQUIT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
