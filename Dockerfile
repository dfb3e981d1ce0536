# flaglens application image (api, projector, migrations and the CLI share it; docker-compose.yml picks
# the command). The services run from the TypeScript sources with ts-node (see package.json scripts);
# `npm run build` type-checks and compiles them, so a broken build fails the image.
FROM node:20-bookworm-slim

WORKDIR /app

# Dependencies first, so source changes do not reinstall them. Dev dependencies are kept: the build
# needs them and the start scripts use ts-node.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && npm cache clean --force

COPY . .
RUN npm run build

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false
USER node
EXPOSE 4242
CMD ["npm", "run", "start:api"]
