/* global process, console */
// Validates the Kubernetes manifests of deploy/k8s offline: every resource the kustomization lists is parsed
// (yaml) and checked against the Kubernetes API's OpenAPI schemas, which the npm package kubernetes-models
// carries (Kubernetes 1.27 API, JSON-schema validation with ajv; no cluster, no network). Then what the
// schema cannot say: the image and its command, probes, the projector's replicas within the partitions,
// a single connector, non-root pods, and every ConfigMap/Secret a pod reads is part of the base.
//   node deploy/k8s/validate.mjs [dir]     (npm run deploy:check runs it)
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, parse } from 'yaml';

const dir = process.argv[2] ?? dirname(fileURLToPath(import.meta.url));
const PARTITIONS = Number(process.env.KAFKA_PARTITIONS ?? 6);
const COMMANDS = new Set(['api', 'projector', 'connector', 'migrate']);
const problems = [];
const fail = (where, message) => problems.push(`${where}: ${message}`);

const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'));
const imageName = kustomization.images?.[0]?.name;
const resources = [];
for (const file of kustomization.resources ?? []) {
  for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
    if (doc.errors.length) fail(file, doc.errors.map((e) => e.message).join('; '));
    const object = doc.toJS();
    if (object) resources.push({ file, object });
  }
}

/** The kubernetes-models module of an apiVersion: `v1` is the core group. */
const moduleOf = (apiVersion) => `kubernetes-models/${apiVersion.includes('/') ? apiVersion : `v1`}`;

const names = new Set(resources.map(({ object }) => `${object.kind}/${object.metadata?.name}`));
for (const { file, object } of resources) {
  const where = `${file} ${object.kind}/${object.metadata?.name}`;
  let models;
  try {
    models = await import(moduleOf(object.apiVersion));
  } catch {
    fail(where, `unknown apiVersion ${object.apiVersion}`);
    continue;
  }
  const Model = models[object.kind];
  if (!Model) {
    fail(where, `unknown kind ${object.kind} in ${object.apiVersion}`);
    continue;
  }
  try {
    new Model(object).validate();
  } catch (e) {
    fail(where, e.message);
  }

  const pod = object.kind === 'Job' || object.kind === 'Deployment' ? object.spec?.template?.spec : undefined;
  if (!pod) continue;
  if (pod.securityContext?.runAsNonRoot !== true) fail(where, 'the pod must set runAsNonRoot: true');
  for (const c of pod.containers ?? []) {
    if (c.image !== imageName)
      fail(where, `container ${c.name}: image ${c.image}, expected ${imageName} (kustomization images)`);
    const command = c.args?.[0];
    if (!COMMANDS.has(command))
      fail(where, `container ${c.name}: args[0] ${command} is not one of ${[...COMMANDS]}`);
    if (object.kind === 'Deployment') {
      if (c.livenessProbe?.httpGet?.path !== '/health/live')
        fail(where, 'livenessProbe must GET /health/live');
      if (c.readinessProbe?.httpGet?.path !== '/health/ready')
        fail(where, 'readinessProbe must GET /health/ready');
      const annotations = object.spec.template.metadata?.annotations ?? {};
      if (annotations['prometheus.io/scrape'] !== 'true')
        fail(where, 'missing the prometheus.io/scrape annotation');
    }
    for (const from of c.envFrom ?? []) {
      const ref = from.configMapRef
        ? `ConfigMap/${from.configMapRef.name}`
        : `Secret/${from.secretRef?.name}`;
      if (!names.has(ref)) fail(where, `reads ${ref}, which is not in the base`);
    }
  }
  if (object.kind === 'Deployment') {
    const name = object.metadata.name;
    const replicas = object.spec.replicas ?? 1;
    if (name.endsWith('projector') && replicas > PARTITIONS)
      fail(where, `${replicas} replicas for ${PARTITIONS} partitions: the extra ones would idle`);
    if (name.endsWith('connector') && (replicas !== 1 || object.spec.strategy?.type !== 'Recreate'))
      fail(where, 'the connector runs as exactly one replica with the Recreate strategy');
  }
}
for (const required of [
  'Deployment/flaglens-api',
  'HorizontalPodAutoscaler/flaglens-api',
  'Deployment/flaglens-projector',
  'PodDisruptionBudget/flaglens-projector',
  'Deployment/flaglens-connector',
  'Job/flaglens-migrate',
]) {
  if (!names.has(required)) fail('kustomization.yaml', `${required} is missing`);
}

if (problems.length) {
  console.error(`deploy/k8s: ${problems.length} problem(s):\n  - ${problems.join('\n  - ')}`);
  process.exit(1);
}
console.log(
  `deploy/k8s: ${resources.length} resources valid against the Kubernetes API schemas (kubernetes-models)`,
);
