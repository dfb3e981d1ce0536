#!/bin/sh
# The image's entry point (Dockerfile ENTRYPOINT, after tini): picks the app from the command and `exec`s
# node, so node is tini's direct child and receives SIGTERM itself.
#   api | projector | connector | migrate | cli <args...>
# The heap caps are package.json's config.apiNodeOptions / projectorNodeOptions (npm start uses the same);
# NODE_OPTIONS adds to them.
set -eu
cd /app
node_options() { node -p "require('./package.json').config.$1"; }
command="${1:-api}"
[ "$#" -gt 0 ] && shift
case "$command" in
  api)
    # shellcheck disable=SC2046 # the options are words
    exec node $(node_options apiNodeOptions) -r ./scripts/dist-paths.js dist/apps/api/src/main.js "$@" ;;
  projector)
    # shellcheck disable=SC2046
    exec node $(node_options projectorNodeOptions) -r ./scripts/dist-paths.js dist/apps/projector/src/main.js "$@" ;;
  connector)
    exec node -r ./scripts/dist-paths.js dist/apps/cli/src/main.js source unleash "$@" ;;
  migrate)
    exec node -r ./scripts/dist-paths.js dist/scripts/migrate.js "$@" ;;
  cli)
    exec node -r ./scripts/dist-paths.js dist/apps/cli/src/main.js "$@" ;;
  *)
    echo "flaglens image: unknown command '$command' (api, projector, connector, migrate or cli ...)" >&2
    exit 64 ;;
esac
