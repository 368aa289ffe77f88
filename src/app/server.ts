import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createMetricsExposition } from '../metrics/exposition.js';
import { createCompressor } from '../metrics/gzip-members.js';
import type { SelfMetrics } from '../metrics/registry.js';
import { coreRoutes, routeTable } from '../serve/routes.js';
import { createHttpServer } from '../serve/server.js';
import { createTlsServer } from '../serve/tls.js';
import type { FeatureSet } from './feature-set.js';
import type { AppGeneration } from './generation.js';

/** The server, on the core's routes and the features': its bounds, TLS and auth read from the generation in force. */
export function createDaemonServer(parts: {
  readonly logger: Logger;
  readonly now: () => number;
  readonly current: () => AppGeneration;
  readonly self: SelfMetrics;
  readonly features: FeatureSet;
}): Server {
  const { current, self, features } = parts;
  // One bound on compressions in the thread pool for all of /metrics.
  const metrics = createMetricsExposition({ self, now: parts.now, blocks: () => features.series(), compressor: createCompressor() });
  return createHttpServer({
    logger: parts.logger.child({ module: 'server' }),
    tlsServer: createTlsServer,
    web: () => current().config.web,
    onServed: (endpoint, code) => self.servedRequest(endpoint, code),
    limits: () => current().connectionLimits,
    allowedHosts: () => current().allowedHosts,
    onConnection: (event) => self.connection(event),
    now: parts.now,
    routes: routeTable([
      coreRoutes({
        metrics,
        maxMetricsRequests: () => current().config.listen.maxMetricsRequests,
        onMetricsInFlight: (inFlight) => self.metricsInFlight(inFlight),
        notReady: () => features.notReady(),
        v2Methods: () => Object.assign({}, ...features.provided('v2Methods')) as Record<string, never>,
      }),
      ...features.routes(),
    ]),
  });
}
