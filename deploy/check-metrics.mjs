/* global process, console */
// The dashboard and the alert rules name metrics flaglens exports: each name must be one of
// libs/observability/src/metric-names.ts (a renamed metric fails here, not silently in Grafana), and every
// dashboard query must parse as PromQL: they are written out as recording rules for `promtool check rules`.
//   node deploy/check-metrics.mjs <out-dir>     (prints the rules file it wrote; npm run deploy:check)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2] ?? join(root, '.run', 'deploy-check');
const names = readFileSync(join(root, 'libs/observability/src/metric-names.ts'), 'utf8');
const exported = new Set([...names.matchAll(/^\s+\w+: '([a-z_:]+)',$/gm)].map((m) => m[1]));
const problems = [];

/** Metric names of ours in a PromQL expression (histogram series map to their histogram). */
function ours(expr) {
  return [...expr.matchAll(/\b((?:flaglens|kafka_consumergroup|http_request)_[a-z_]+)\b/g)].map((m) =>
    m[1].replace(/_(bucket|sum|count)$/, ''),
  );
}

const dashboard = JSON.parse(readFileSync(join(root, 'ops/grafana/flaglens.json'), 'utf8'));
const recording = [];
for (const panel of dashboard.panels) {
  for (const target of panel.targets ?? []) {
    for (const name of ours(target.expr))
      if (!exported.has(name)) problems.push(`dashboard panel "${panel.title}": ${name} is not exported`);
    recording.push({
      record: `dashboard:panel_${panel.id}_${target.refId}`,
      // Grafana's variables, as Grafana would fill them in
      expr: target.expr.replaceAll('$__rate_interval', '1m').replaceAll('$group', '.*'),
    });
  }
}
const rules = parse(readFileSync(join(root, 'ops/prometheus/alerts.yml'), 'utf8'));
for (const group of rules.groups)
  for (const rule of group.rules)
    for (const name of ours(rule.expr))
      if (!exported.has(name)) problems.push(`alert ${rule.alert}: ${name} is not exported`);

mkdirSync(out, { recursive: true });
const file = join(out, 'dashboard-queries.yml');
writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules: recording }] }));
if (problems.length) {
  console.error(`metric names: ${problems.length} problem(s):\n  - ${problems.join('\n  - ')}`);
  process.exit(1);
}
console.error(
  `metric names: the dashboard (${recording.length} queries) and the alert rules name exported metrics`,
);
console.log(file);
