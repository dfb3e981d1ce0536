#!/usr/bin/env bash
# `npm start`: infrastructure, schema, projector and api, demo data; Ctrl-C stops the apps.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '[start] %s\n' "$*"; }
# the apps run on the project's Node (24, or FLAGLENS_NODE), whichever Node ran `npm start` (scripts/node-runtime.sh)
source scripts/node-runtime.sh
log "node $(node --version)"

[ -d node_modules ] || { log "installing dependencies (npm ci)"; npm ci; }
bash scripts/infra.sh up
npm run -s build
npm run -s migrate

mkdir -p .run
PORT="${PORT:-4242}"
PROJECTOR_PORT="${PROJECTOR_PORT:-4243}"
export PORT PROJECTOR_PORT
pids=()
cleanup() {
  log "stopping apps"
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait || true
}
trap cleanup EXIT INT TERM

# the projector's heap is capped (package.json config.projectorNodeOptions): its live set is small, and an
# uncapped heap grows lazily to ~350 MB under a 1M-event ingest (npm run bench); its garbage collection runs on
# the main thread, which costs less CPU in all than V8's helper threads on a busy machine, and its young
# generation is large enough for most of a batch to die young (docs/performance.md)
projector_node_options="${npm_package_config_projectorNodeOptions:-$(node -p "require('./package.json').config.projectorNodeOptions")}"
# shellcheck disable=SC2086 # the options are words
node $projector_node_options -r ./scripts/dist-paths.js dist/apps/projector/src/main.js >> .run/projector.log 2>&1 &
pids+=($!)
# the api's heap is capped too (package.json config.apiNodeOptions): streamed lists keep its memory bounded, and a
# capped heap keeps garbage collection pauses short (npm run bench:hardening); under the cap it may grow to four
# times what a full collection leaves, so that full collections (each a pause) come seldom (docs/performance-reads.md)
api_node_options="${npm_package_config_apiNodeOptions:-$(node -p "require('./package.json').config.apiNodeOptions")}"
# shellcheck disable=SC2086 # the options are words
node $api_node_options -r ./scripts/dist-paths.js dist/apps/api/src/main.js >> .run/api.log 2>&1 &
pids+=($!)

for _ in $(seq 1 120); do
  curl -fs "http://127.0.0.1:${PORT}/health/live" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -fs "http://127.0.0.1:${PORT}/health/live" >/dev/null || { log "the api did not start; see .run/api.log"; tail -20 .run/api.log; exit 1; }

if [ -n "${UNLEASH_DATABASE_URL:-}" ]; then
  # a real Unleash: its events (and SDK usage) stream in through the source connector; no demo data
  CONNECTOR_PORT="${CONNECTOR_PORT:-4244}"
  export CONNECTOR_PORT
  node -r ./scripts/dist-paths.js dist/apps/cli/src/main.js source unleash >> .run/connector.log 2>&1 &
  pids+=($!)
  log "source connector following Unleash (logs: .run/connector.log, health: http://127.0.0.1:${CONNECTOR_PORT}/health/ready)"
else
  node scripts/run-compiled.js scripts/seed-demo
fi

# authentication is on: a personal access token of the initial admin for the examples below (local use)
TOKEN="$(npm run -s cli -- token create --user admin --name 'npm start' 2>/dev/null | tail -1)"

if [ -n "${UNLEASH_DATABASE_URL:-}" ]; then
  connector_line="http://127.0.0.1:${CONNECTOR_PORT}/health/ready   (logs: .run/connector.log)"
else
  connector_line="not running (set UNLEASH_DATABASE_URL to stream a real Unleash in)"
fi
cat <<MSG

flaglens is running.
  api        http://127.0.0.1:${PORT}          (logs: .run/api.log)
  OpenAPI    http://127.0.0.1:${PORT}/docs
  console    http://127.0.0.1:${PORT}/console/  (sign in with the admin token of the examples below)
  contract   http://127.0.0.1:${PORT}/schemas/feature-event.json
  projector  http://127.0.0.1:${PROJECTOR_PORT}/health/ready   (logs: .run/projector.log)
  connector  ${connector_line}

Try:
  curl -s -H "Authorization: ${TOKEN}" http://127.0.0.1:${PORT}/api/admin/events/checkout.new-flow | head -c 600; echo
  curl -s -H "Authorization: ${TOKEN}" http://127.0.0.1:${PORT}/api/admin/user/profile; echo
  npm run cli -- token create --user alice@example.com   # a token for another user (printed once)
  npm run cli -- publish test/fixtures/reference-sample/events.ndjson    # duplicates are stored once
  npm run cli -- --help

Ctrl-C stops the apps; \`npm run infra:down\` stops Kafka.
MSG
wait
