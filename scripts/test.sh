#!/usr/bin/env bash
# `npm test`: every test tier, from nothing on a machine of our kind. Installs if needed, starts the
# infrastructure (idempotent: the Kafka broker, Postgres if local and down; left running, `npm run infra:down`
# stops the broker), then unit, integration, end-to-end and the chaos run's short form (which starts, restarts
# and deletes a Postgres cluster and a Kafka broker of its own: never the machine's or the shared ones).
set -euo pipefail
cd "$(dirname "$0")/.."
# the tests run on the project's Node (24, or FLAGLENS_NODE), whichever Node ran `npm test`: jest, the apps and
# every tool they spawn find it first on PATH (scripts/node-runtime.sh)
source scripts/node-runtime.sh
echo "[test] node $(node --version) ($(command -v node))"
[ -d node_modules ] || { echo "[test] installing dependencies (npm ci)"; npm ci; }
# the Debian packages of the console (chromium), proxy (nginx) and alert (prometheus) e2e tests, and wrk, the
# bench's load tool (bench/load.spec.ts runs its wrk cases only where wrk is installed)
bash scripts/system-packages.sh chromium:chromium nginx:nginx prometheus:prometheus wrk:wrk
bash scripts/infra.sh up
npm run -s test:unit
npm run -s test:int
npm run -s test:e2e
npm run -s test:chaos
