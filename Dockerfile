# syntax=docker/dockerfile:1
# calendar-service: compiled once with the dev toolchain, run by plain Node with production
# dependencies only, as the unprivileged `node` user. See README "Deployment".

# 1. Compile TypeScript to dist/ (needs the dev dependencies).
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY indexes ./indexes
COPY src ./src
RUN npm run build

# 2. Production dependencies only.
FROM node:20-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 3. The image: compiled code, production dependencies, the seed calendar.
FROM node:20-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
COPY --chown=node:node seeds ./seeds
# The embedded engine's data directory (LMDB, used when no MONGODB_URI is set); mount a volume here.
# lmdb's native binary comes from its prebuilt package for the build platform (linux x64 or arm64,
# glibc): npm ci installs it, nothing is compiled.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# No curl in the slim image: Node's own fetch asks the readiness route (storage answers too).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]
# Also in this image: node dist/src/cli/seed.js [...], node dist/src/cli/indexes.js [--check] and,
# with the service stopped, node dist/src/cli/compact.js (README "Data directory").
# --heap-growing-percent=100 --max-semi-space-size=32: see "Memory" in the README (the same flags as `npm start`).
CMD ["node", "--heap-growing-percent=100", "--max-semi-space-size=32", "dist/src/server.js"]
