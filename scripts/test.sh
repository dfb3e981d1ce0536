#!/usr/bin/env bash
# `npm test`: every test tier, from nothing on a machine of our kind. Installs if needed, starts the
# infrastructure (idempotent: the Kafka broker, Postgres if local and down; left running, `npm run infra:down`
# stops the broker), then every tier in two lanes side by side (scripts/lanes.sh; each test file has its own
# database, topic and consumer group, so files of the two lanes run at once): the integration and end-to-end
# files together, split in two shards of about equal seconds (scripts/test-sequencer.js, by the seconds recorded
# in scripts/test-durations.json), one per lane; unit before the first, the chaos run's short form (its own
# Postgres cluster and Kafka broker: never the machine's or the shared ones) after the second. Each lane's output
# is printed whole when it ends; the status fails if either fails. Jest's results go to .run/test-results/
# (`npm run -s test:durations` records their seconds for the next split). Two lanes: docs/testing.md, "CI", says
# what a third did.
#   npm test -- --ci   (what .ci/run calls) adds, in the same lanes: lint before unit and the conformance run
#                      against Unleash 6.10.1 and 8.2.0 after the first shard; the short forms of the bench and of
#                      the bench at scale (bench/scale.ts, which fails on errors only, never on a figure) after chaos
set -euo pipefail
ci=0
for arg in "$@"; do
  case "$arg" in
    --ci) ci=1 ;;
    *) echo "usage: npm test [-- --ci]" >&2; exit 2 ;;
  esac
done
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
# the one build (scripts/build.sh): the apps the tests start compiled (test/start.e2e-spec.ts, the chaos run, the
# bench) start from it; their own `npm run build` then finds it done (and would wait for it, never race it)
npm run -s build
# one shard of the integration and end-to-end files (jest's --shard through scripts/test-sequencer.js), its
# results kept for `npm run -s test:durations`. --forceExit: a file whose beforeAll failed can leave a client
# connected (its afterAll has nothing to close), and jest would then wait for it forever after the last file
rm -rf .run/test-results && mkdir -p .run/test-results
# Each shard is split knowing what else its lane runs (FLAGLENS_SHARD_BESIDE: the npm scripts of each shard's lane,
# `;` between shards; scripts/test-sequencer.js weighs them by the record's `besideShards`), so the lanes end close
# together. Keep it in step with the lanes below.
shard() {
  echo "FLAGLENS_SHARD_BESIDE='$beside' bash scripts/node-runtime.sh exec jest --selectProjects int e2e --runInBand --forceExit --shard=$1/2 --json --outputFile=.run/test-results/shard-$1.json"
}
# the runs that load both cores on purpose (the chaos run, the benches) never overlap a test that times the
# api under a load of its own (test/probes-under-load.e2e-spec.ts takes the same lock)
heavy="flock $PWD/.run/cpu-heavy.lock"
if [[ "$ci" == "1" ]]; then
  beside='lint,test:unit,conformance;test:chaos,bench,bench:scale'
  bash scripts/lanes.sh \
    --lane lint-unit-shard1-conformance 'npm run -s lint' 'npm run -s test:unit' "$(shard 1)" \
    'npm run -s conformance -- --unleash 6.10.1 --unleash 8.2.0' \
    --lane shard2-chaos-bench "$(shard 2)" "$heavy npm run -s test:chaos" "$heavy npm run -s bench -- --quick" \
    "$heavy npm run -s bench:scale -- --quick"
else
  beside='test:unit;test:chaos'
  bash scripts/lanes.sh \
    --lane unit-shard1 'npm run -s test:unit' "$(shard 1)" \
    --lane shard2-chaos "$(shard 2)" "$heavy npm run -s test:chaos"
fi
