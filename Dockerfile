# flaglens: one image for every app. The command picks it (docker-compose.yml, deploy/k8s):
#   api | projector | connector | migrate   (and `cli ...` for operations, e.g. `cli status`)
# Node is PID 1's direct child (tini, then the entry point `exec`s node), so SIGTERM reaches it and the
# projector leaves its consumer group on every stop. Runs as `node` (uid 1000) on a root-owned, read-only
# tree: nothing is compiled at run time.
#
# There is no Docker engine on the development machine: deploy/image/image-test.ts builds the runtime tree
# by interpreting this file (every COPY, WORKDIR, ENV and RUN, apt-get excepted) and runs each command the
# way ENTRYPOINT/CMD/USER/HEALTHCHECK say. Keep the instructions to that subset (docs/deploy.md).

# ---- build: all dependencies, compile TypeScript to dist/
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
COPY migrations ./migrations
COPY scripts ./scripts
RUN npm run build

# ---- deps: the same install without the dev dependencies
FROM build AS deps
RUN npm prune --omit=dev --no-audit --no-fund --ignore-scripts

# ---- runtime: compiled JS + production dependencies, nothing else
FROM node:24-bookworm-slim AS runtime
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    PROJECTOR_HOST=:: \
    CONNECTOR_HOST=:: \
    PORT=4242 \
    PROJECTOR_PORT=4243 \
    CONNECTOR_PORT=4244
COPY package.json tsconfig.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY scripts/dist-paths.js ./scripts/dist-paths.js
COPY deploy/image/entrypoint.sh deploy/image/healthcheck.js ./deploy/image/
USER node
EXPOSE 4242 4243 4244
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/app/deploy/image/healthcheck.js"]
ENTRYPOINT ["/usr/bin/tini", "--", "/app/deploy/image/entrypoint.sh"]
CMD ["api"]
