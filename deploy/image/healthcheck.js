/* global fetch, AbortSignal */
// The image's HEALTHCHECK: asks the running app's /health/live. Which app runs is read from the command of
// PID 1 (tini -- entrypoint.sh <command>), so one HEALTHCHECK serves every command; `migrate` and `cli`
// have no server and are healthy while they run. HEALTHCHECK_PID reads another process (the image test).
const { readFileSync } = require('node:fs');

const argv = readFileSync(`/proc/${process.env.HEALTHCHECK_PID || '1'}/cmdline`, 'utf8').split('\0');
const at = argv.findIndex((a) => a.endsWith('/entrypoint.sh'));
const command = (at >= 0 && argv[at + 1]) || 'api';
const port = {
  api: process.env.PORT || '4242',
  projector: process.env.PROJECTOR_PORT || '4243',
  connector: process.env.CONNECTOR_PORT || '4244',
}[command];
if (!port) process.exit(0);
fetch(`http://127.0.0.1:${port}/health/live`, { signal: AbortSignal.timeout(4000) }).then(
  (r) => process.exit(r.ok ? 0 : 1),
  () => process.exit(1),
);
