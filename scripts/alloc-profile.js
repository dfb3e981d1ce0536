// Preloaded by `BENCH_ALLOC_PROFILE=<dir>` (libs/testing/src/support/processes.ts): V8's sampling heap profiler, counting
// also the objects the garbage collector has already cleared (what --heap-prof leaves out), so the profile
// says which functions allocate the garbage. Written as <dir>/alloc-<pid>.json when the process stops;
// `node scripts/profile-summary.js <file>` sums it by function and by package.
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.BENCH_ALLOC_PROFILE;
// BENCH_ALLOC_PROFILE_OLD=1: only objects that outlived the young generation (promoted: the old generation's
// garbage, which costs mark-compacts), not those a scavenge cleared
const promotedOnly = process.env.BENCH_ALLOC_PROFILE_OLD === '1';
const session = new inspector.Session();
session.connect();
session.post('HeapProfiler.enable');
session.post('HeapProfiler.startSampling', {
  samplingInterval: 16384,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: !promotedOnly,
});
let written = false;
function write() {
  if (written) return;
  written = true;
  // an in-process inspector session answers synchronously
  session.post('HeapProfiler.stopSampling', (err, r) => {
    if (!err) writeFileSync(join(dir, `alloc-${process.pid}.json`), JSON.stringify(r.profile));
  });
}
process.on('exit', write);
process.prependListener('SIGTERM', write);
