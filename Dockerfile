# syntax=docker/dockerfile:1
# Multi-stage: build with dev dependencies, run with production ones only, as a non-root user.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
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
# /healthz answers 200 while the process runs; readiness (/readyz) is for load balancers.
HEALTHCHECK --interval=15s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.TONWATCH_PORT||10384)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "--max-semi-space-size=32", "dist/main.js"]
CMD ["--config", "/etc/tonwatch/tonwatch.yml"]
