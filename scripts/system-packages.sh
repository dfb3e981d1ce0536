#!/usr/bin/env bash
# Installs the Debian packages some tests use, when missing: `bash scripts/system-packages.sh cmd:package ...`
# (e.g. chromium:chromium promtool:prometheus). With apt-get as root, or with sudo that asks no password;
# otherwise it names what to install and exits 1, so a test run stops with a clear reason instead of a
# failure deep inside a test.
set -euo pipefail
missing=()
for pair in "$@"; do
  cmd="${pair%%:*}"
  pkg="${pair#*:}"
  if [[ "$cmd" == chromium && -n "${CHROMIUM_PATH:-}" ]]; then continue; fi
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
done
((${#missing[@]})) || exit 0
as_root=()
if [[ "$(id -u)" != "0" ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  else
    echo "[system-packages] missing: ${missing[*]}; install them: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
command -v apt-get >/dev/null 2>&1 || {
  echo "[system-packages] missing: ${missing[*]} (and no apt-get to install them)" >&2
  exit 1
}
echo "[system-packages] installing ${missing[*]} (apt-get)"
"${as_root[@]}" apt-get update -qq >/dev/null
# no service is started: the packages' init scripts are skipped without an init system
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
