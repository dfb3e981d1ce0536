#!/usr/bin/env bash
# One stage of the bench for two checkouts side by side, taking turns in one run (the machines are shared and
# noisy: only ratios measured in the same run mean something).
#
#   bash bench/ab.sh ingest <before-ref> [rounds, default 3] [events per run, default 300000]
#   bash bench/ab.sh miss <before-ref> [rounds, default 3] [seconds of load per run, default 10]
#   bash bench/ab.sh reads <before-ref> [rounds, default 3] [seconds per endpoint, default 3]
#
# The before-ref is checked out (detached) under .run/ab/before with its own `npm ci`; this checkout is
# "after". Each round runs the stage in before, then in after:
#  - ingest: `npm run bench -- --ingest-only --events N`: events/s from the first batch to lag 0, the COPY
#    ceiling of that run (the ratio is per run), and the projector's and Postgres backends' CPU µs per event
#    (where the checkout prints them);
#  - miss: `npm run bench -- --miss-only --events 20000 --read-seconds S` (the reads that miss, while 5,000
#    events/s are ingested): the closed loop's req/s, p50 and p99, the api's CPU per request and its Postgres
#    backends' CPU per request (ms/s of the backends ÷ req/s); the paced load's req/s, p50 and p99 and its
#    floor's p99 (where the checkout runs it); and the ingest's own CPU beside it: the projector's and its
#    Postgres backends' ms per second of load;
#  - reads: `npm run bench -- --quick --reads-only --read-seconds S` (the cached reads at 50 connections,
#    each endpoint taking turns with its floor): per endpoint, req/s, the ratio to its floor and the api's CPU
#    µs per request.
# The figures go to bench/results/<stage>-ab-<UTC timestamp>.json (<stage>-ab-node-… with AB_BEFORE_NODE), with the medians.
# AB_BEFORE_NODE=<a directory holding a node binary> runs the before checkout on that Node (e.g. /usr/bin, the
# machine's), the after one on this shell's: a checkout against itself across Node releases, or an old release's
# Node as it ran then. The Node of each side is in the result (beforeNode, afterNode). AB_SAME_CHECKOUT=1 runs the
# after side in the before checkout too: with AB_BEFORE_NODE, one commit's code on two Node releases.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
USAGE="usage: bash bench/ab.sh ingest|miss|reads <before-ref> [rounds] [events | seconds]"
STAGE="${1:?$USAGE}"
REF="${2:?$USAGE}"
ROUNDS="${3:-3}"
case "$STAGE" in
  ingest) SIZE="${4:-300000}" ;;
  miss) SIZE="${4:-10}" ;;
  reads) SIZE="${4:-3}" ;;
  *) echo "$USAGE" >&2; exit 2 ;;
esac
BEFORE="$ROOT/.run/ab/before"
AFTER="$ROOT"
[[ -n "${AB_SAME_CHECKOUT:-}" ]] && AFTER="$BEFORE"
cd "$ROOT"

if [[ -d "$BEFORE" ]]; then
  git -C "$BEFORE" checkout -q --detach "$REF"
else
  mkdir -p "$(dirname "$BEFORE")"
  git worktree add -q --detach "$BEFORE" "$REF"
fi
(cd "$BEFORE" && npm ci --no-audit --no-fund --silent >/dev/null)
bash scripts/infra.sh up >/dev/null

# the first number after a sed pattern's prefix in the output, or empty
pick() { echo "$out" | sed -n "s/$1/\\1/p" | tail -1; }
# the same in one line of the output
field() { echo "$1" | sed -n "s/$2/\\1/p" | tail -1; }

runs=()
one() { # <label> <dir>
  local args
  case "$STAGE" in
    ingest) args=(--ingest-only --events "$SIZE") ;;
    miss) args=(--miss-only --events 20000 --read-seconds "$SIZE") ;;
    reads) args=(--quick --reads-only --read-seconds "$SIZE") ;;
  esac
  local path="$PATH"
  [[ "$1" == before && -n "${AB_BEFORE_NODE:-}" ]] && path="$AB_BEFORE_NODE:$PATH"
  out="$(cd "$2" && PATH="$path" npm run -s bench -- "${args[@]}" 2>&1)" || {
    echo "$out" | tail -20 >&2
    echo "[ab] the $1 run failed" >&2
    exit 1
  }
  if [[ "$STAGE" == reads ]]; then
    # one row per endpoint line: "[bench] <endpoint> c=50 (<tool>, <n> bytes…): R req/s, p50 …; floor F req/s,
    # p99 … ms, ratio X; CPU µs/request A, floor B"
    local rows
    rows="$(echo "$out" | node -e '
      const re = /^\[bench\] (.+) c=(\d+) \(.*\): (\d+) req\/s, p50 ([\d.]+) ms, p99 ([\d.]+) ms, non-2xx (\d+); floor (\d+) req\/s, p99 [\d.]+ ms, ratio ([\d.]+); CPU µs\/request (\d+|\?), floor (\d+|\?)/;
      const rows = require("fs").readFileSync(0, "utf8").split("\n").map((l) => l.match(re)).filter(Boolean)
        .map((m) => ({ endpoint: m[1], reqPerSec: +m[3], p99Ms: +m[5], non2xx: +m[6], floorReqPerSec: +m[7], floorRatio: +m[8], cpuUsPerRequest: m[9] === "?" ? null : +m[9], floorCpuUsPerRequest: m[10] === "?" ? null : +m[10] }));
      console.log(JSON.stringify(rows));')"
    [[ "$rows" != "[]" ]] || { echo "$out" | tail -20 >&2; exit 1; }
    echo "[ab] round $r $1: $(echo "$rows" | node -pe 'JSON.parse(require("fs").readFileSync(0,"utf8")).map((x) => `${x.endpoint}: ratio ${x.floorRatio}, ${x.cpuUsPerRequest} µs`).join("; ")')" >&2
    runs+=("{\"round\":$r,\"checkout\":\"$1\",\"reads\":$rows}")
  elif [[ "$STAGE" == ingest ]]; then
    local rate ceiling cpu pgcpu
    rate="$(pick '.*\[bench\] projected [0-9]* in [0-9.]* s (\([0-9]*\)\/s.*')"
    ceiling="$(pick '.*\[bench\] COPY ceiling \([0-9]*\)\/s.*')"
    [[ -n "$rate" && -n "$ceiling" ]] || { echo "$out" | tail -20 >&2; exit 1; }
    # CPU µs per event (printed by checkouts that measure it): less distorted by a loaded machine than events/s
    cpu="$(pick '.*\[bench\] ingest CPU µs\/event: projector \([0-9.]*\), Postgres backends [0-9.]*.*')"
    pgcpu="$(pick '.*\[bench\] ingest CPU µs\/event: projector [0-9.]*, Postgres backends \([0-9.]*\).*')"
    echo "[ab] round $r $1: $rate events/s, COPY ceiling $ceiling/s, CPU µs/event projector ${cpu:-?} Postgres ${pgcpu:-?}" >&2
    runs+=("{\"round\":$r,\"checkout\":\"$1\",\"eventsPerSec\":$rate,\"copyCeilingPerSec\":$ceiling,\"projectorCpuUsPerEvent\":${cpu:-null},\"postgresCpuUsPerEvent\":${pgcpu:-null}}")
  else
    local closed paced rps p50 p99 apicpu pgms prps pp50 pp99 pfloor
    # the closed loop's line and the paced load's line (checkouts before the paced load print only the first)
    closed="$(echo "$out" | grep '\[bench\] miss load c=' | tail -1)"
    paced="$(echo "$out" | grep '\[bench\] miss load paced (' | tail -1)"
    rps="$(field "$closed" '.*produced): \([0-9]*\) req\/s.*')"
    p50="$(field "$closed" '.*produced): [0-9]* req\/s, p50 \([0-9.]*\) ms.*')"
    p99="$(field "$closed" '.*produced): [0-9]* req\/s, p50 [0-9.]* ms, p99 \([0-9.]*\) ms.*')"
    apicpu="$(field "$closed" '.*; api CPU \([0-9.]*\) ms\/request.*')"
    pgms="$(field "$closed" '.*"api Postgres backends":\([0-9]*\).*')"
    prps="$(field "$paced" '.*produced): \([0-9]*\) req\/s, p50.*')"
    pp50="$(field "$paced" '.*produced): [0-9]* req\/s, p50 \([0-9.]*\) ms.*')"
    pp99="$(field "$paced" '.*produced): [0-9]* req\/s, p50 [0-9.]* ms, p99 \([0-9.]*\) ms.*')"
    pfloor="$(field "$paced" '.*the floor at the same pace [0-9]* req\/s, p50 [0-9.]* ms, p99 \([0-9.]*\) ms.*')"
    # what the ingest beside the load costs the machine: the projector and its Postgres backends, ms/s
    local projms projpg
    projms="$(field "$closed" '.*"projector":\([0-9]*\).*')"
    projpg="$(field "$closed" '.*"projector Postgres backends":\([0-9]*\).*')"
    [[ -n "$rps" && -n "$p99" ]] || { echo "$out" | tail -20 >&2; exit 1; }
    local pgcpu=null
    [[ -n "$pgms" ]] && pgcpu="$(node -p "Number(($pgms / $rps).toFixed(3))")"
    echo "[ab] round $r $1: closed loop $rps req/s, p50 $p50 ms, p99 $p99 ms, CPU ms/request api ${apicpu:-?} its Postgres backends $pgcpu; paced ${prps:-?} req/s, p50 ${pp50:-?} ms, p99 ${pp99:-?} ms (the floor's p99 ${pfloor:-?} ms); ingest CPU ms/s projector ${projms:-?} its Postgres backends ${projpg:-?}" >&2
    runs+=("{\"round\":$r,\"checkout\":\"$1\",\"reqPerSec\":$rps,\"p50Ms\":$p50,\"p99Ms\":$p99,\"apiCpuMsPerRequest\":${apicpu:-null},\"apiPostgresCpuMsPerRequest\":$pgcpu,\"pacedReqPerSec\":${prps:-null},\"pacedP50Ms\":${pp50:-null},\"pacedP99Ms\":${pp99:-null},\"pacedFloorP99Ms\":${pfloor:-null},\"projectorCpuMsPerSec\":${projms:-null},\"projectorPostgresCpuMsPerSec\":${projpg:-null}}")
  fi
}
for ((r = 1; r <= ROUNDS; r++)); do
  one before "$BEFORE"
  one after "$AFTER"
done

mkdir -p bench/results
file="bench/results/$STAGE-ab${AB_BEFORE_NODE:+-node}-$(date -u +%Y-%m-%dT%H-%M-%SZ).json"
node -e '
const [runsJson, stage, ref, beforeCommit, afterCommit, size, file, beforeNode, afterNode] = process.argv.slice(1);
const runs = JSON.parse(runsJson);
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const side = (c) => {
  const rs = runs.filter((x) => x.checkout === c);
  const of = (k) => (rs.every((x) => x[k] !== null) ? med(rs.map((x) => x[k])) : null);
  if (stage === "reads") {
    const by = {};
    for (const x of rs) for (const row of x.reads) (by[row.endpoint] ??= []).push(row);
    return Object.fromEntries(Object.entries(by).map(([e, xs]) => [e, { floorRatio: med(xs.map((x) => x.floorRatio)), reqPerSec: med(xs.map((x) => x.reqPerSec)), cpuUsPerRequest: xs.every((x) => x.cpuUsPerRequest !== null) ? med(xs.map((x) => x.cpuUsPerRequest)) : null }]));
  }
  if (stage === "ingest")
    return { eventsPerSec: of("eventsPerSec"), ratioToCopy: med(rs.map((x) => Number((x.eventsPerSec / x.copyCeilingPerSec).toFixed(3)))), projectorCpuUsPerEvent: of("projectorCpuUsPerEvent"), postgresCpuUsPerEvent: of("postgresCpuUsPerEvent") };
  return { reqPerSec: of("reqPerSec"), p50Ms: of("p50Ms"), p99Ms: of("p99Ms"), apiCpuMsPerRequest: of("apiCpuMsPerRequest"), pacedReqPerSec: of("pacedReqPerSec"), pacedP50Ms: of("pacedP50Ms"), pacedP99Ms: of("pacedP99Ms"), pacedFloorP99Ms: of("pacedFloorP99Ms"), apiPostgresCpuMsPerRequest: of("apiPostgresCpuMsPerRequest"), projectorCpuMsPerSec: of("projectorCpuMsPerSec"), projectorPostgresCpuMsPerSec: of("projectorPostgresCpuMsPerSec") };
};
const out = { stage, before: ref, beforeCommit, afterCommit, beforeNode, afterNode, [stage === "ingest" ? "events" : stage === "reads" ? "secondsPerEndpoint" : "readSeconds"]: Number(size), runs, median: { before: side("before"), after: side("after") } };
require("fs").writeFileSync(file, JSON.stringify(out, null, 2) + "\n");
console.log(JSON.stringify(out.median));
' "[$(IFS=,; echo "${runs[*]}")]" "$STAGE" "$REF" "$(git -C "$BEFORE" rev-parse --short HEAD)" "$(git -C "$AFTER" rev-parse --short HEAD)" "$SIZE" "$file" \
  "$(PATH="${AB_BEFORE_NODE:+$AB_BEFORE_NODE:}$PATH" node --version)" "$(node --version)"
echo "[ab] $file"
