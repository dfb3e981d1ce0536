#!/usr/bin/env bash
# `npm run build`: compiles apps, libs, migrations and scripts into dist/ (tsc, incremental), copies beside them the
# .sql files the compiled code reads (copy-assets.js), bundles the web console (build-console.js; `--quiet` prints
# nothing), then marks dist/ built (dist/.built): the apps start from dist/ and refuse to without it
# (scripts/dist-paths.js). Starting an app never builds; this is the one build step (`npm start` and `npm test`
# run it once).
# One build at a time per checkout: a build started while another runs waits for it (flock), then finds little
# left to do (tsc is incremental, copy-assets skips files already in place). Two at once (the bench and a test
# both build) would write the same files together; Node's cpSync then failed with EEXIST.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p dist
exec 9>dist/.build.lock
flock 9
node node_modules/typescript/bin/tsc -p tsconfig.build.json --incremental --tsBuildInfoFile dist/.tsbuildinfo
node scripts/copy-assets.js
node scripts/build-console.js "$@"
touch dist/.built
