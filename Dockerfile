# syntax=docker/dockerfile:1
# The Signet provider. Build: docker build -t signet .   Run: see compose.yaml.
# Both stages run what scripts/runtime-tree.sh does, which e2e/production.test.ts exercises
# on every test run (no container engine runs on the CI machines; the image build itself is not).

FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY . .
# Full install (compiler, bundler), build, then the pruned production tree in /out.
RUN npm install --no-audit --no-fund \
 && npm run build \
 && scripts/runtime-tree.sh /out

FROM node:24-bookworm-slim
# `signet provider` bounds the young generation itself (8 MB semi-spaces on SQLite, 16 MB on Redis;
# README, "Memory under load"); a NODE_OPTIONS of the operator's that sizes it (--max-semi-space-size) wins.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    STORAGE_URL=sqlite:/data/signet.db
WORKDIR /app
COPY --from=build /out /app
# The database holds private keys: a directory only the service user can read.
RUN mkdir -m 0700 /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# Readiness (/health/ready: storage answers, keys loaded, not shutting down), so Swarm and
# compose's service_healthy send traffic only to a replica that can serve it. Kubernetes uses
# /health/live and /health/ready as two probes instead (deploy/kubernetes/).
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The server itself is PID 1 (no npm, no shell): SIGTERM reaches its graceful shutdown.
# It spawns no children, so there is nothing to reap; compose adds `init: true` anyway.
ENTRYPOINT ["node", "apps/provider/bin/signet.js"]
CMD ["provider"]
