# syntax=docker/dockerfile:1
# One image for every Vestibule process. The first argument picks the process kind:
#   podman build -t vestibule:0.1.0 .            (or docker build)
#   podman run --rm --env-file vestibule.env -p 8102:8102 vestibule:0.1.0 gateway
#   kinds: auth identity teams-permissions billing email vault gateway frontends migrate   (deploy/container/entrypoint.sh)
# Stages: build (npm ci, npm run build: dist/ with plain JavaScript and the built frontends) → deps (production
# dependencies of the runtime workspaces only) → runtime (node + tini, non-root, read-only-root friendly, no TS tooling).
ARG NODE_IMAGE=docker.io/library/node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund && npm run build

FROM ${NODE_IMAGE} AS deps
WORKDIR /prod
COPY --from=build /src /src
# Only the manifests: npm ci needs every workspace's package.json to read the lock file.
RUN cd /src && find . -name package.json -not -path "*/node_modules/*" -not -path "./dist/*" -not -path "*/dist/*" \
      | tar -cf - -T - package-lock.json | tar -xf - -C /prod \
 && cd /prod && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
      -w proto -w services/shared -w services/auth -w services/identity -w services/teams-permissions \
      -w services/billing -w services/email -w services/vault -w gateway -w deploy -w frontends/build-config \
 && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    VESTIBULE_HOME=/app \
    VESTIBULE_MODE=production \
    HOST=0.0.0.0
WORKDIR /app
# Everything root-owned and read-only for the process user: the code never writes inside /app.
COPY --from=deps /prod /app
COPY --from=build /src/dist /app/dist
COPY deploy/container/entrypoint.sh /app/entrypoint.sh
# Non-root (the node image's uid 1000; Kubernetes runAsNonRoot checks the numeric id).
USER 1000:1000
# Probes come from the orchestrator (Kubernetes grpc/http probes, compose healthchecks): no image HEALTHCHECK.
HEALTHCHECK NONE
EXPOSE 8101 8102 8110 8111 8112 8113 8114 8115
ENTRYPOINT ["/usr/bin/tini", "--", "/app/entrypoint.sh"]
CMD ["help"]
