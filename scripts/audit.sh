#!/usr/bin/env bash
# `npm audit --audit-level=high` (CI runs it after the lint): fails on a high or critical advisory. A registry
# whose audit endpoint cannot answer (this development machine's answers 405) is reported loudly, not failed:
# no check was possible, which is not the same as a finding. Exceptions, when there are any, are listed in
# the README ("Security").
set -uo pipefail
out="$(npm audit --audit-level=high 2>&1)"
rc=$?
printf '%s\n' "$out" | grep -v 'Unknown user config' | tail -25
if [[ $rc -ne 0 ]] && grep -q 'audit endpoint returned an error' <<<"$out"; then
  echo "[audit] WARNING: the registry's audit endpoint did not answer; no advisory check was possible" >&2
  exit 0
fi
exit "$rc"
