import type { WatchedKeys } from '../domain/config.js';
import type { MetricsExposition } from '../metrics/exposition.js';
import { METRICS_ENDPOINT } from '../metrics/registry.js';
import type { Snapshot } from '../snapshot/types.js';
import type { QueryName } from '../domain/queries.js';
import { serveHealthz, serveReadyz } from './health.js';
import { createStatusRoutes } from '../features/status-page/routes.js';
import type { StatusSources } from '../features/status-page/model.js';
import type { Logger } from 'pino';
import { jsonResponse } from './response.js';
import { createJsonRpcRoute } from './json-rpc.js';
import type { Route, ServedRequest } from './server.js';
import { createQueueSizesHandler, QUEUE_SIZES_PATHS, queueSizesRoute } from '../features/queue-sizes/v2.js';
import { createWalletStatesHandler, type ReadThroughLookup } from '../features/wallets/v3.js';

/** What the handlers need of the configuration; the composition root builds it once per config. */
export interface ServeSettings {
  /** snapshot.maxAgeSeconds: older data is not served. */
  readonly maxAgeSeconds: number;
  /** Locally computed user-friendly forms get the testnet flag. */
  readonly testnet: boolean;
  /** Raw keys of the watchlist. */
  readonly watched: WatchedKeys;
  /** Upstreams in failover order, for the status page, with credentials in URLs already redacted. */
  readonly upstreams: readonly { readonly name: string; readonly url: string }[];
  /** listen.maxMetricsRequests: /metrics requests at once before 503; 0 = no limit. */
  readonly maxMetricsRequests: number;
  /** readThrough.enabled and ttlSeconds. */
  readonly readThrough: { readonly enabled: boolean; readonly ttlSeconds: number };
}

export interface RoutesDeps {
  readonly version: string;
  /** The process clock (domain/clock.ts). */
  readonly now: () => number;
  /** Wall minus process time, ms (domain/clock.ts): for `@extra` and Last-Modified; default 0. */
  readonly wallOffset?: () => number;
  readonly snapshot: () => Snapshot;
  readonly settings: () => ServeSettings;
  /** Parts of the persisted snapshot still being read from disk at start. */
  readonly loading: () => readonly QueryName[];
  readonly nextPollDueAt: (query: QueryName) => number | null;
  readonly metrics: MetricsExposition;
  /** Told the number of /metrics requests in flight when it changes. */
  readonly onMetricsInFlight?: (inFlight: number) => void;
  /** Looks up unwatched addresses when settings().readThrough.enabled. */
  readonly readThrough?: ReadThroughLookup;
  /** What the status page shows; without it `/` is the status page of an empty daemon. */
  readonly status: () => StatusSources;
  readonly logger: Logger;
  /** The features' own routes. */
  readonly routes?: readonly (readonly [string, Route])[];
}

/** The route table: path → handler, each reading the current snapshot and config. */
export function createRoutes(deps: RoutesDeps): ReadonlyMap<string, Route> {
  const { now, snapshot, settings } = deps;
  const readiness = () => ({
    snapshot: snapshot(),
    now: now(),
    maxAgeSeconds: settings().maxAgeSeconds,
    watchlistSize: settings().watched.size,
    loading: deps.loading(),
  });
  const wallOffset = deps.wallOffset ?? (() => 0);
  const queueSizesHandler = createQueueSizesHandler(wallOffset);
  const serveQueueSizes = (request: ServedRequest) =>
    queueSizesHandler.serve(snapshot().queueSizes, {
      method: request.method,
      now: now(),
      maxAgeSeconds: settings().maxAgeSeconds,
      nextPollDueAt: deps.nextPollDueAt('queue_sizes'),
    });
  const queueSizes = queueSizesRoute(serveQueueSizes);
  const getOnly = (endpoint: string, handle: Route['handle']): Route => ({
    endpoint,
    handle: (request) =>
      request.method === 'GET' || request.method === 'HEAD'
        ? handle(request)
        : jsonResponse(405, { error: `method ${request.method} not allowed; use GET` }, { allow: 'GET, HEAD' }),
  });
  const walletStatesHandler = createWalletStatesHandler(wallOffset);
  const walletStates: Route = {
    endpoint: 'wallet_states',
    handle: (request) =>
      walletStatesHandler.serve(snapshot().wallets, {
        method: request.method,
        query: request.query,
        now: now(),
        maxAgeSeconds: settings().maxAgeSeconds,
        nextPollDueAt: deps.nextPollDueAt('wallets'),
        testnet: settings().testnet,
        watched: settings().watched,
        loading: deps.loading().includes('wallets'),
        readThrough: settings().readThrough.enabled ? (deps.readThrough ?? null) : null,
        readThroughTtlSeconds: settings().readThrough.ttlSeconds,
        client: request.client ?? '',
      }),
  };
  return new Map<string, Route>([
    ['/api/v3/walletStates', walletStates],
    ...QUEUE_SIZES_PATHS.map((path): [string, Route] => [path, queueSizes]),
    ['/api/v2/jsonRPC', createJsonRpcRoute({ getOutMsgQueueSizes: serveQueueSizes, getOutMsgQueueSize: serveQueueSizes })],
    [
      '/metrics',
      {
        ...getOnly(METRICS_ENDPOINT, async (request) => {
          const body = await deps.metrics.render(request.acceptsGzip());
          const headers: Record<string, string> = { 'content-type': deps.metrics.contentType, vary: 'Accept-Encoding' };
          if (body.encoding === 'gzip') headers['content-encoding'] = 'gzip';
          return { status: 200, headers, body: body.encoding === 'gzip' ? body.parts : body };
        }),
        maxInFlight: () => settings().maxMetricsRequests,
        ...(deps.onMetricsInFlight === undefined ? {} : { onInFlight: deps.onMetricsInFlight }),
      },
    ],
    ['/healthz', getOnly('healthz', () => serveHealthz())],
    ['/readyz', getOnly('readyz', () => serveReadyz(readiness()))],
    ...createStatusRoutes({ sources: deps.status, logger: deps.logger }).map(([path, route]): [string, Route] => [
      path,
      getOnly(route.endpoint, (request) => route.handle(request)),
    ]),
    ...(deps.routes ?? []),
  ]);
}
