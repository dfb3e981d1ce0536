#!/usr/bin/env node
// Sums a V8 profile by function and by package: a CPU profile (.cpuprofile: self time, idle left out) or a
// sampling allocation profile (scripts/alloc-profile.js: bytes allocated). Usage:
//   node scripts/profile-summary.js <file> [top=30]
const { readFileSync } = require('node:fs');

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/profile-summary.js <file.cpuprofile|alloc-*.json> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8'));

/** node_modules package, the project's file, node's own module, or native/V8. */
function where(url) {
  if (url.includes('node_modules/')) return url.split('node_modules/').pop().split('/')[0];
  if (url.startsWith('node:')) return url;
  if (url === '') return '(native/vm)';
  return url.split('/').pop();
}

const byFunction = new Map();
const byPlace = new Map();
const add = (frame, amount) => {
  const place = where(frame.url);
  const key = `${frame.functionName || '(anonymous)'} [${place}]`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + amount);
  byPlace.set(place, (byPlace.get(place) ?? 0) + amount);
};

let unit;
if (profile.nodes) {
  // CPU profile: time per sample, attributed to the sampled node's own function
  unit = 'of busy time';
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id).callFrame;
    if (frame.functionName !== '(idle)') add(frame, profile.timeDeltas[i]);
  });
} else {
  unit = 'of bytes allocated';
  const walk = (n) => {
    if (n.selfSize) add(n.callFrame, n.selfSize);
    for (const c of n.children ?? []) walk(c);
  };
  walk(profile.head);
}
const total = [...byFunction.values()].reduce((a, b) => a + b, 0);
const print = (title, map, n) => {
  console.log(`${title} (% ${unit})`);
  for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n))
    console.log(`${((100 * v) / total).toFixed(1).padStart(6)}%  ${k}`);
};
print('by function', byFunction, top);
print('by package or file', byPlace, 15);
// the whole: ms of busy time, or MB allocated (divided by a run's events, the bytes per event)
console.log(
  profile.nodes
    ? `total ${(total / 1e3).toFixed(0)} ms busy`
    : `total ${(total / 1e6).toFixed(1)} MB allocated`,
);
