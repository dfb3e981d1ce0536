#!/usr/bin/env bash
# Runs `npm run bench:scale` detached from the terminal, for the long runs (10M events take hours).
# Its output goes to .run/bench-scale-<timestamp>.log, and the result to bench/results/scale-<timestamp>.json
# as usual. Arguments are passed on: bench/scale-background.sh --brief --as-of-wait 120
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .run
log=".run/bench-scale-$(date -u +%Y-%m-%dT%H-%M-%SZ).log"
nohup npm run -s bench:scale -- "$@" >"$log" 2>&1 </dev/null &
echo "bench:scale running as pid $!; its log: $log"
