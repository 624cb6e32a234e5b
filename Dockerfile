# Keyflow api and worker image. docker-compose.yml runs it twice:
#   command: node dist/api/main.js      (keyflow-api)
#   command: node dist/worker/main.js   (keyflow-worker)
# Node 24 LTS: native ML-DSA (OpenSSL 3.5); glibc for Temporal's native core bridge.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The `node` devDependency (pinned Node for `npm start`) is not needed here: the image has Node 24.
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx tsc -p . && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    NODE_OPTIONS="--enable-source-maps --disable-warning=ExperimentalWarning" \
    BIND_ADDRESS=0.0.0.0 \
    DATA_DIR=/var/lib/keyflow
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/api/assets ./api/assets
RUN mkdir -p /var/lib/keyflow && chown node:node /var/lib/keyflow
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/api/main.js"]
