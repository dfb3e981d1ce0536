/*
 * npm run conformance:install -- [VERSION...]
 *
 * Installs the real Unleash releases named (default: every one of PEER_VERSIONS) into .cache/unleash-<version>,
 * and the Node each runs on, as the runs that start them would (installPeer, peerNode: under the same lock, a
 * no-op when installed). CI runs it beside its other downloads, before the tests, so no test spends its time on
 * an `npm ci`.
 */
import { installPeer, isPeerVersion, peerNode, PEER_VERSIONS } from './unleash-peer';

const asked = process.argv.slice(2);
const unknown = asked.filter((v) => !isPeerVersion(v));
if (unknown.length > 0) {
  console.error(`unknown Unleash release: ${unknown.join(', ')} (known: ${PEER_VERSIONS.join(', ')})`);
  process.exit(2);
}
const started = Date.now();
for (const version of asked.length > 0 ? asked.filter(isPeerVersion) : PEER_VERSIONS) {
  installPeer((m) => console.log(`[install-peers] ${m}`), version);
  peerNode(version);
}
console.log(`[install-peers] ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
