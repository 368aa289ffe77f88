# syntax=docker/dockerfile:1
# Multi-stage: build with dev dependencies, run with production ones only, as a non-root user.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /var/lib/tonwatch /etc/tonwatch && chown node:node /var/lib/tonwatch
USER node
EXPOSE 10384
VOLUME ["/var/lib/tonwatch"]
# The config: the daemon and the healthcheck both read $TONWATCH_CONFIG, so set it (not
# --config) to use another file.
ENV TONWATCH_CONFIG=/etc/tonwatch/tonwatch.yml
# `tonwatch healthcheck` asks /healthz at the port, address and scheme (TLS or not) of that
# config, and counts 401 (basic auth on) as alive; no curl in the image. Readiness (/readyz)
# is for load balancers.
HEALTHCHECK --interval=15s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "dist/main.js", "healthcheck"]
ENTRYPOINT ["node", "--max-semi-space-size=8", "dist/main.js"]
