# Keyflow api and worker image. docker-compose.yml runs it twice:
#   command: node dist/api/main.js      (keyflow-api)
#   command: node dist/worker/main.js   (keyflow-worker)
# and it carries the operator CLI: docker compose exec keyflow-api node bin/keyflow.js …
# Node 24 LTS, the version package.json pins (its `node` devDependency): native
# ML-DSA (OpenSSL 3.5); glibc (bookworm) for Temporal's native core bridge.

# Build: every dependency, and the TypeScript of the processes compiled into dist/.
# Only the product's folders are copied in: the tests and tools/ (benchmarks,
# conformance kit, the embedded servers `npm start` runs) are not built here,
# and none of the product imports them (test/unit/deploy/compose.test.ts).
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY api ./api
COPY cli ./cli
COPY worker ./worker
COPY workflows ./workflows
COPY activities ./activities
COPY lib ./lib
RUN npx tsc -p .

# Runtime: production dependencies and the compiled product only. The worker
# bundles its workflow code from dist/workflows (and what it imports in
# dist/lib) when it starts; the api serves api/assets; bin/keyflow.js is the CLI.
FROM node:24.21.0-bookworm-slim
ENV NODE_ENV=production \
    NODE_OPTIONS="--enable-source-maps --disable-warning=ExperimentalWarning" \
    BIND_ADDRESS=0.0.0.0 \
    DATA_DIR=/var/lib/keyflow
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/api ./dist/api
COPY --from=build /app/dist/worker ./dist/worker
COPY --from=build /app/dist/cli ./dist/cli
COPY --from=build /app/dist/workflows ./dist/workflows
COPY --from=build /app/dist/activities ./dist/activities
COPY --from=build /app/dist/lib ./dist/lib
COPY bin ./bin
COPY api/assets ./api/assets
# DATA_DIR would hold a generated key-encryption key; docker-compose.yml sets KEYFLOW_KEK instead.
RUN mkdir -p /var/lib/keyflow && chown node:node /var/lib/keyflow
# The image's own user (uid 1000): the files above stay root's, read-only to it.
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/api/main.js"]
