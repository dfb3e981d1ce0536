#!/usr/bin/env node
// The operator CLI, compiled (`npm run build` first). In a checkout, `npm run cli -- <command>` works without building.
require('../scripts/dist-paths');
require('../dist/apps/cli/src/main');
