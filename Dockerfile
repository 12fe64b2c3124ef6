# syntax=docker/dockerfile:1
# paygate in production: the TypeScript compiled to dist/ (npm run build), run by plain Node.
#   docker build -t paygate .
#   docker run -p 3000:3000 -v paygate-data:/data paygate              embedded database in /data
#   docker compose up                                                   PostgreSQL, two APIs, a worker
# See docs/operations.md.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: every dependency, the generated Prisma client, tsc, the pages (Vite) -------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No dependency's install script runs (the project's allowScripts denies them all; @prisma/engines'
# would download a native engine that is never used). The project's own postinstall, the Prisma
# client generation, runs next, explicitly.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY prisma.config.ts ./
COPY scripts/prisma-generate.mjs scripts/
COPY prisma ./prisma
RUN npm run generate
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The browser pages (web/, the hosted checkout) are built by Vite into web/dist/ by the same script.
COPY scripts/build-web.mjs scripts/
COPY web ./web
RUN npm run build

# ---- production dependencies only -------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the postinstall would generate the TypeScript client into src/, which this
# image does not have nor need (dist/db/generated/ is its compiled form).
# anvil (a test chain node, an optional dependency for the tests) is no part of the service.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && rm -rf node_modules/@foundry-rs && npm cache clean --force

# ---- runtime ----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    PAYGATE_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
# Read at run time beside dist/: the GraphQL schema, the Prisma schema and migrations (applied at
# start), and the CLI entry (bin/paygate.mjs runs dist/cli/ when there is no src/).
COPY package.json schema.graphql ./
COPY prisma ./prisma
COPY bin ./bin
# The embedded database and its encryption key (without DATABASE_URL), owned by the unprivileged user.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3000
# Ready: the database answers and has this version's migrations (GET /readyz).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM stops it in order (requests in flight answered, jobs stopped) within 10 s: give it more.
STOPSIGNAL SIGTERM
# The same command as `npm run start:prod`. --max-old-space-size=512: V8 then lets the old generation
# grow to about 1.4 times what is live between full collections rather than 4 times, which keeps the
# service under 200 MB resident under load, at the price of more frequent full collections; past 512 MB
# of live objects (ten times what paygate holds) Node stops. --max-semi-space-size=8: a young generation
# of 16 MB instead of 32, some 15 MB less resident for about 2 % more CPU in collections (docs/operations.md, Memory).
CMD ["node", "--max-old-space-size=512", "--max-semi-space-size=8", "dist/main.js"]
