# One Dockerfile, one target per app (the dependency and build stages are shared):
#   docker build --target gateway -t chorus-gateway .
#   docker build --target worker  -t chorus-worker  .
# Stage order matters: the legacy builder (docker-compose 1.x, DOCKER_BUILDKIT=0) builds every stage
# above the target, so what only the worker needs (llama.cpp's compile) comes after the gateway.
# Debian slim, not Alpine: node-llama-cpp's prebuilt linux-x64 llama.cpp binaries need glibc.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS base
WORKDIR /app

# Only the manifests, so the `npm ci` layers below are rebuilt only when one of them changes.
# Every workspace's package.json must be here (npm ci checks them against the lock file), and so
# must tools/empty-package: the npm `overrides` point node-llama-cpp's CUDA/Vulkan packages at it.
FROM base AS manifests
COPY package.json package-lock.json ./
COPY tools/empty-package/package.json tools/empty-package/
COPY packages/contracts/package.json packages/contracts/
COPY packages/platform/package.json packages/platform/
COPY packages/client/package.json packages/client/
COPY packages/local-runtime/package.json packages/local-runtime/
COPY packages/audio/package.json packages/audio/
COPY apps/gateway/package.json apps/gateway/
COPY apps/worker/package.json apps/worker/
COPY apps/cli/package.json apps/cli/
COPY bench/package.json bench/

# All dependencies, for the build. It runs only tsc, which needs no install script (and some
# would probe native binaries or fetch fallbacks).
FROM manifests AS deps
RUN npm ci --ignore-scripts --no-audit --no-fund

FROM deps AS build
COPY tsconfig.base.json tsconfig.json ./
COPY packages/ packages/
COPY apps/ apps/
COPY bench/ bench/
# Every project the root tsconfig references: `tsc -b` builds (and type-checks) them all, as CI does.
COPY examples/typescript/ examples/typescript/
RUN npm run build

# Production dependencies per app (npm workspaces filter): the gateway does not carry llama.cpp.
# node-llama-cpp's postinstall only probes its binaries (or compiles llama.cpp when no prebuilt
# one fits); the prebuilt @node-llama-cpp/linux-x64 is loaded at run time either way, so it is
# skipped: the build stays deterministic and needs no compiler.
FROM manifests AS gateway-deps
RUN NODE_LLAMA_CPP_POSTINSTALL=skip npm ci --omit=dev --workspace=apps/gateway --workspace=apps/cli --no-audit --no-fund

# What both app images share. Files copied below stay owned by root, so the app cannot modify
# itself; only what is compiled (dist/) and the production node_modules go in, never sources.
FROM base AS runtime
ENV NODE_ENV=production
USER node

FROM runtime AS gateway
COPY --from=gateway-deps /app/ ./
COPY --from=build /app/packages/contracts/dist packages/contracts/dist
COPY --from=build /app/packages/platform/dist packages/platform/dist
COPY --from=build /app/apps/gateway/dist apps/gateway/dist
# The playground (GET /): its page as written, the SDK's browser build it talks to the API with,
# and the characters' data files it shows.
COPY --from=build /app/apps/gateway/public apps/gateway/public
COPY --from=build /app/packages/client/dist packages/client/dist
COPY --from=build /app/packages/contracts/characters packages/contracts/characters
# For `docker compose exec gateway node apps/cli/dist/keys.js create --name NAME`.
COPY --from=build /app/apps/cli/dist apps/cli/dist
ENV PORT=3000 HOST=0.0.0.0
EXPOSE 3000
# Node flags as in packages/local-runtime/src/app-command.ts (deploy/test keeps the two in step).
CMD ["node", "--max-semi-space-size=64", "apps/gateway/dist/main.js"]

# Only the worker's stages from here on: `--target gateway` never reaches them, with either builder.
# llama.cpp's own llama-server, the worker's llama.cpp engine (docs/engines.md), built from the
# source node-llama-cpp ships (its git bundle: offline, the same commit as the in-process engine).
# An image moves between CPUs, so not for this one (GGML_NATIVE off: an x86-64-v3 baseline, AVX2 and
# FMA, on x86); one static binary, which needs only libgomp at run time.
FROM base AS llama-server
RUN apt-get update && apt-get install -y --no-install-recommends cmake make g++ git ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=deps /app/node_modules/node-llama-cpp/llama/gitRelease.bundle /tmp/llama.cpp.bundle
RUN git clone -q /tmp/llama.cpp.bundle /tmp/llama.cpp \
    && cmake -S /tmp/llama.cpp -B /tmp/build -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
       -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
       -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    && cmake --build /tmp/build --target llama-server -j"$(nproc)" \
    && cp /tmp/build/bin/llama-server /usr/local/bin/llama-server \
    && rm -rf /tmp/llama.cpp /tmp/build /tmp/llama.cpp.bundle

# The worker's production dependencies, installed as the gateway's are above.
FROM manifests AS worker-deps
RUN NODE_LLAMA_CPP_POSTINSTALL=skip npm ci --omit=dev --workspace=apps/worker --no-audit --no-fund

FROM runtime AS worker
USER root
# apt-get clean too: Debian's own images drop the downloaded packages by themselves, a base without
# that setting keeps them in the layer (79.6 MB against 1.28 MB with the stand-in base).
RUN apt-get update && apt-get install -y --no-install-recommends libgomp1 && apt-get clean && rm -rf /var/lib/apt/lists/*
USER node
COPY --from=llama-server /usr/local/bin/llama-server /usr/local/bin/llama-server
COPY --from=worker-deps /app/ ./
COPY --from=build /app/packages/contracts/dist packages/contracts/dist
COPY --from=build /app/packages/platform/dist packages/platform/dist
COPY --from=build /app/packages/audio/dist packages/audio/dist
COPY --from=build /app/apps/worker/dist apps/worker/dist
# The character catalog: CHARACTERS_DIR in @chorus/contracts, beside its dist/.
COPY --from=build /app/packages/contracts/characters packages/contracts/characters
# UV_THREADPOOL_SIZE as in packages/local-runtime/src/app-command.ts (APP_ENV: llama.cpp's threads stay warm).
ENV MODELS_DIR=/home/node/.cache/chorus/models WORKER_HTTP_HOST=0.0.0.0 WORKER_HTTP_PORT=9100 UV_THREADPOOL_SIZE=1 \
    LLAMA_SERVER_BIN=/usr/local/bin/llama-server
EXPOSE 9100
# Created as node, so a fresh named volume mounted here starts out owned by node.
RUN mkdir -p "$MODELS_DIR"
CMD ["node", "apps/worker/dist/main.js"]
