import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** The process warnings one kafkajs request queue's first schedule raises, in a node of its own. */
function warningsOfAnIdleQueue(patched: boolean): string[] {
  const script = `
    const seen = [];
    process.on('warning', (w) => seen.push(w.name));
    if (process.argv[1] === 'patched') require('./libs/kafka/src/kafkajs-request-queue');
    const RequestQueue = require('kafkajs/src/network/requestQueue');
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const queue = new RequestQueue({ maxInFlightRequests: 1, requestTimeout: 1000, clientId: 'spec', broker: 'b:1', logger: quiet });
    queue.scheduleCheckPendingRequests();
    setTimeout(() => { process.stdout.write(JSON.stringify(seen)); process.exit(0); }, 50);`;
  const out = execFileSync(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', '-e', script, patched ? 'patched' : 'as-released'],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 },
  );
  return JSON.parse(out) as string[];
}

describe("kafkajs' request queue on the Node we run", () => {
  const major = Number(process.versions.node.split('.')[0]);

  (major >= 23 ? it : it.skip)(
    'control: kafkajs 2.2.4 as released sets a negative timer, which Node 24 reports as a TimeoutNegativeWarning',
    () => {
      expect(warningsOfAnIdleQueue(false)).toEqual(['TimeoutNegativeWarning']);
    },
  );

  it('with @flaglens/kafka loaded it raises no warning (nothing stray on stderr)', () => {
    expect(warningsOfAnIdleQueue(true)).toEqual([]);
  });
});
