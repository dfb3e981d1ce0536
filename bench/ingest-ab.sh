#!/usr/bin/env bash
# Ingest of two checkouts side by side, taking turns in one run (the machines are shared and noisy: only
# ratios measured in the same run mean something).
#
#   bash bench/ingest-ab.sh <before-ref> [rounds, default 3] [events per run, default 300000]
#
# The before-ref is checked out (detached) under .run/ab/before with its own `npm ci`; this checkout is
# "after". Each round runs `npm run bench -- --ingest-only --events N` in before, then in after: events/s
# from the first batch to lag 0, the COPY ceiling of that run (the ratio is per run), and the projector's and
# Postgres backends' CPU µs per event (where the checkout prints them). The figures go to
# bench/results/ingest-ab-<UTC timestamp>.json, with the medians.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REF="${1:?usage: bash bench/ingest-ab.sh <before-ref> [rounds] [events]}"
ROUNDS="${2:-3}"
EVENTS="${3:-300000}"
BEFORE="$ROOT/.run/ab/before"
cd "$ROOT"

if [[ -d "$BEFORE" ]]; then
  git -C "$BEFORE" checkout -q --detach "$REF"
else
  mkdir -p "$(dirname "$BEFORE")"
  git worktree add -q --detach "$BEFORE" "$REF"
fi
(cd "$BEFORE" && npm ci --no-audit --no-fund --silent >/dev/null)
bash scripts/infra.sh up >/dev/null

runs=()
one() { # <label> <dir>
  local out
  out="$(cd "$2" && npm run -s bench -- --ingest-only --events "$EVENTS" 2>&1)" || {
    echo "$out" | tail -20 >&2
    echo "[ingest-ab] the $1 run failed" >&2
    exit 1
  }
  local rate ceiling
  rate="$(echo "$out" | sed -n 's/.*\[bench\] projected [0-9]* in [0-9.]* s (\([0-9]*\)\/s.*/\1/p' | tail -1)"
  ceiling="$(echo "$out" | sed -n 's/.*\[bench\] COPY ceiling \([0-9]*\)\/s.*/\1/p' | tail -1)"
  [[ -n "$rate" && -n "$ceiling" ]] || { echo "$out" | tail -20 >&2; exit 1; }
  # CPU µs per event (printed by checkouts that measure it): less distorted by a loaded machine than events/s
  local cpu pgcpu
  cpu="$(echo "$out" | sed -n 's/.*\[bench\] ingest CPU µs\/event: projector \([0-9.]*\), Postgres backends \([0-9.]*\).*/\1/p' | tail -1)"
  pgcpu="$(echo "$out" | sed -n 's/.*\[bench\] ingest CPU µs\/event: projector \([0-9.]*\), Postgres backends \([0-9.]*\).*/\2/p' | tail -1)"
  echo "[ingest-ab] round $r $1: $rate events/s, COPY ceiling $ceiling/s, CPU µs/event projector ${cpu:-?} Postgres ${pgcpu:-?}" >&2
  runs+=("{\"round\":$r,\"checkout\":\"$1\",\"eventsPerSec\":$rate,\"copyCeilingPerSec\":$ceiling,\"projectorCpuUsPerEvent\":${cpu:-null},\"postgresCpuUsPerEvent\":${pgcpu:-null}}")
}
for ((r = 1; r <= ROUNDS; r++)); do
  one before "$BEFORE"
  one after "$ROOT"
done

mkdir -p bench/results
file="bench/results/ingest-ab-$(date -u +%Y-%m-%dT%H-%M-%SZ).json"
node -e '
const runs = JSON.parse(process.argv[1]);
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const side = (c) => {
  const rs = runs.filter((x) => x.checkout === c);
  const cpu = (k) => (rs.every((x) => x[k] !== null) ? med(rs.map((x) => x[k])) : null);
  return { eventsPerSec: med(rs.map((x) => x.eventsPerSec)), ratioToCopy: med(rs.map((x) => Number((x.eventsPerSec / x.copyCeilingPerSec).toFixed(3)))), projectorCpuUsPerEvent: cpu("projectorCpuUsPerEvent"), postgresCpuUsPerEvent: cpu("postgresCpuUsPerEvent") };
};
const out = { before: process.argv[2], beforeCommit: process.argv[3], afterCommit: process.argv[4], events: Number(process.argv[5]), runs, median: { before: side("before"), after: side("after") } };
require("fs").writeFileSync(process.argv[6], JSON.stringify(out, null, 2) + "\n");
console.log(JSON.stringify(out.median));
' "[$(IFS=,; echo "${runs[*]}")]" "$REF" "$(git -C "$BEFORE" rev-parse --short HEAD)" "$(git rev-parse --short HEAD)" "$EVENTS" "$file"
echo "[ingest-ab] $file"
