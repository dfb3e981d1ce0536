#!/usr/bin/env bash
# `npm run deploy:check`: the deployment files, checked offline with the real tools (docs/deploy.md).
#   docker-compose.yml           docker-compose config (Debian's docker-compose: a compose parser, no engine)
#   ops/prometheus/*.yml         promtool check config / check rules (Debian's prometheus)
#   ops/grafana/flaglens.json    every query parses (promtool) and names an exported metric
#   deploy/k8s                   the Kubernetes API schemas (deploy/k8s/validate.mjs, npm kubernetes-models)
#   deploy/nginx                 nginx -t (Debian's nginx), upstreams pointed at loopback
# Missing tools are installed by scripts/system-packages.sh (apt-get as root or with sudo -n), or named.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="$ROOT/.run/deploy-check"
rm -rf "$OUT"
mkdir -p "$OUT"
log() { printf '[deploy:check] %s\n' "$*"; }

# the Debian packages the checks (and test/deploy/*.e2e-spec.ts) use
bash scripts/system-packages.sh docker-compose:docker-compose promtool:prometheus nginx:nginx

log "docker-compose.yml"
docker-compose -f docker-compose.yml config -q
docker-compose -f docker-compose.yml --profile unleash config -q

log "Prometheus configuration and alert rules"
promtool check config ops/prometheus/prometheus.yml >/dev/null
promtool check rules ops/prometheus/alerts.yml

log "Grafana dashboard queries"
queries="$(node deploy/check-metrics.mjs "$OUT")"
promtool check rules "$queries" >/dev/null

log "Kubernetes manifests"
node deploy/k8s/validate.mjs

log "nginx configuration"
mkdir -p "$OUT/nginx"
cp deploy/nginx/flaglens-routes.conf "$OUT/nginx/"
sed -e 's/server flaglens-api:4242;/server 127.0.0.1:4242;/' -e 's/server unleash:4242;/server 127.0.0.1:4243;/' \
  deploy/nginx/nginx.conf >"$OUT/nginx/nginx.conf"
nginx -t -q -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf" -g "pid $OUT/nginx/nginx.pid; error_log stderr;"

log "all deployment files valid"
