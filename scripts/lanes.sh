#!/usr/bin/env bash
# Runs independent test tiers side by side: `bash scripts/lanes.sh --lane NAME CMD [CMD...] [--lane NAME CMD...]`.
# A lane runs its commands (bash -c) one after another and stops at its first failure; the lanes run at once.
# Each lane's output goes to .run/lanes/<NAME>.log (or $FLAGLENS_LANES_DIR) and is printed whole, framed by
# its name, when the lane ends; meanwhile one line per command says when it starts and ends, so a slow or
# hanging lane shows. Exit status: 0 when every lane passed, 1 otherwise (every lane still runs to its end).
# scripts/test.sh (`npm test`) and .ci/run use it; docs/testing.md says which tiers share a lane and why.
# Needs bash 5.1 or later (`wait -n -p`; Debian 12 has 5.2).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${FLAGLENS_LANES_DIR:-$ROOT/.run/lanes}"

names=()
declare -A cmds=()
while (($#)); do
  case "$1" in
    --lane)
      [[ -n "${2:-}" && "$2" != --lane ]] || {
        echo "[lanes] usage: lanes.sh --lane NAME CMD [CMD...] [--lane NAME CMD...]" >&2
        exit 2
      }
      names+=("$2")
      cmds[$2]=""
      shift 2
      ;;
    *)
      ((${#names[@]})) || {
        echo "[lanes] a command before any --lane: $1" >&2
        exit 2
      }
      cmds[${names[-1]}]+="$1"$'\n'
      shift
      ;;
  esac
done
((${#names[@]})) || {
  echo "[lanes] usage: lanes.sh --lane NAME CMD [CMD...] [--lane NAME CMD...]" >&2
  exit 2
}
mkdir -p "$DIR"

say() { printf '[lanes %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# One lane: its commands in order, all output to its log; stops at the first failing command.
run_lane() {
  local name="$1" log="$DIR/$1.log" cmd start rc
  : >"$log"
  while IFS= read -r cmd; do
    [[ -n "$cmd" ]] || continue
    start=$SECONDS
    say "$name: $cmd" | tee -a "$log"
    bash -c "$cmd" </dev/null >>"$log" 2>&1
    rc=$?
    if ((rc == 0)); then
      say "$name: $cmd passed after $((SECONDS - start)) s" | tee -a "$log"
    else
      say "$name: $cmd FAILED (exit $rc) after $((SECONDS - start)) s" | tee -a "$log"
      return "$rc"
    fi
  done <<<"${cmds[$name]}"
}

print_log() {
  printf '\n---- lane %s (%s) ----\n' "$1" "${DIR#"$ROOT"/}/$1.log"
  cat "$DIR/$1.log"
  printf -- '---- end of lane %s ----\n\n' "$1"
}

declare -A lane_of=()
# Ends every process of the lanes still running (a lane's commands start apps, brokers, browsers), children first.
kill_tree() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
  kill -TERM "$1" 2>/dev/null
}
stop_lanes() {
  trap - INT TERM
  local pid
  say "interrupted: stopping the lanes still running"
  for pid in "${!lane_of[@]}"; do kill_tree "$pid"; done
  wait
  for pid in "${!lane_of[@]}"; do print_log "${lane_of[$pid]}"; done
  exit 130
}
trap stop_lanes INT TERM

# The machine's CPU time so far (/proc/stat's "cpu" line, in ticks): "<total> <idle+iowait> <steal>", and the time
# some task waited for a CPU (/proc/pressure/cpu "some" total, µs; 0 without PSI): printed over the lanes at the
# end, so a run says whether it was bound by the CPUs.
cpu_now() {
  local _cpu user nice system idle iowait irq softirq steal waited=0
  read -r _cpu user nice system idle iowait irq softirq steal _ </proc/stat
  [[ -r /proc/pressure/cpu ]] && waited="$(sed -n 's/^some .*total=\([0-9]*\).*/\1/p' /proc/pressure/cpu)"
  echo "$((user + nice + system + idle + iowait + irq + softirq + steal)) $((idle + iowait)) $steal ${waited:-0}"
}
cpu_share() { # <sample at the start>: busy %, steal %, CPU-wait % of the wall time since
  local t0 i0 s0 w0 t1 i1 s1 w1 wall=$((SECONDS - started))
  read -r t0 i0 s0 w0 <<<"$1"
  read -r t1 i1 s1 w1 <<<"$(cpu_now)"
  ((t1 > t0 && wall > 0)) || return 0
  say "the machine's CPUs over the lanes (/proc/stat, /proc/pressure/cpu): busy $((100 * (t1 - t0 - (i1 - i0)) / (t1 - t0)))%, stolen $((100 * (s1 - s0) / (t1 - t0)))%; some task waited for a CPU $(((w1 - w0) / 10000 / wall))% of the time"
}

started=$SECONDS
cpu_start="$(cpu_now)"
for name in "${names[@]}"; do
  run_lane "$name" &
  lane_of[$!]="$name"
done

failed=()
while ((${#lane_of[@]})); do
  wait -n -p done_pid "${!lane_of[@]}"
  rc=$?
  name="${lane_of[$done_pid]}"
  unset "lane_of[$done_pid]"
  print_log "$name"
  if ((rc == 0)); then
    say "lane $name passed ($((SECONDS - started)) s since the lanes started)"
  else
    say "lane $name FAILED ($((SECONDS - started)) s since the lanes started)"
    failed+=("$name")
  fi
done

cpu_share "$cpu_start"
if ((${#failed[@]})); then
  say "failed: ${failed[*]}"
  exit 1
fi
say "every lane passed after $((SECONDS - started)) s"
