import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@flaglens/testing/support/http';

const ROOT = join(__dirname, '..', '..', '..', '..');

/**
 * A Kafka broker of one's own (the chaos run, tests that need a broker configured otherwise): started by
 * `scripts/infra.sh kafka-up` (same jars, same properties, same checks) on free ports with its state in
 * `dir`, so it never disturbs the broker other people use. `restart` and `stop` act on this broker alone
 * (infra.sh finds it by its PID file and properties path).
 */
export interface LocalKafka {
  brokers: string;
  /** The Kafka release it runs (KAFKA_VERSION of `opts.env` or the environment, else infra.sh's default). */
  version: string;
  dir: string;
  restart(): Promise<void>;
  /** Stops the broker and deletes its data. */
  stop(): Promise<void>;
}

export async function startLocalKafka(
  dir: string,
  opts: { autoCreateTopics?: boolean; heap?: string; env?: Record<string, string> } = {},
): Promise<LocalKafka> {
  const port = await freePort();
  let controller = await freePort();
  while (controller === port) controller = await freePort();
  const env = {
    ...process.env,
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(controller),
    KAFKA_RUN_DIR: dir,
    KAFKA_BROKERS: `127.0.0.1:${port}`,
    KAFKA_AUTO_CREATE_TOPICS: opts.autoCreateTopics ? 'true' : 'false',
    ...(opts.heap ? { KAFKA_HEAP_OPTS: opts.heap } : {}),
    ...opts.env,
  };
  const infra = async (...args: string[]) => {
    try {
      await promisify(execFile)('bash', [join(ROOT, 'scripts', 'infra.sh'), ...args], { cwd: ROOT, env });
    } catch (e) {
      const { stdout, stderr } = e as { stdout?: string; stderr?: string };
      throw new Error(`scripts/infra.sh ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
    }
  };
  // a broker left over from an interrupted run in the same folder: stopped, its data deleted
  await infra('kafka-down', '--purge');
  await infra('kafka-up');
  // the release infra.sh started (its default when KAFKA_VERSION is unset)
  const { stdout } = await promisify(execFile)('bash', [join(ROOT, 'scripts', 'infra.sh'), 'version'], {
    cwd: ROOT,
    env,
  });
  return {
    brokers: `127.0.0.1:${port}`,
    version: stdout.trim(),
    dir,
    restart: async () => {
      await infra('kafka-down');
      await infra('kafka-up');
    },
    stop: () => infra('kafka-down', '--purge'),
  };
}
