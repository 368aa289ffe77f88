import type { MetricsExposition } from '../metrics/exposition.js';
import { METRICS_ENDPOINT } from '../metrics/registry.js';
import { serveHealthz, serveReadyz } from './health.js';
import { createJsonRpcRoute, type JsonRpcMethod } from './json-rpc.js';
import { jsonResponse } from './response.js';
import type { Route } from './route.js';

/** What the core's own routes read per request. */
export interface CoreRoutesDeps {
  readonly metrics: MetricsExposition;
  /** listen.maxMetricsRequests of the config in force: /metrics requests at once before 503; 0 = no limit. */
  readonly maxMetricsRequests: () => number;
  /** Told the number of /metrics requests in flight when it changes. */
  readonly onMetricsInFlight?: (inFlight: number) => void;
  /** Why the daemon is not ready (the features' reasons); empty when it is. */
  readonly notReady: () => readonly string[];
  /** toncenter v2 methods the features answer, for JSON-RPC. */
  readonly v2Methods: () => Readonly<Record<string, JsonRpcMethod>>;
}

/** A route that answers GET (and HEAD) only; other methods get 405. */
export function getOnly(endpoint: string, handle: Route['handle']): Route {
  return {
    endpoint,
    handle: (request) =>
      request.method === 'GET' || request.method === 'HEAD'
        ? handle(request)
        : jsonResponse(405, { error: `method ${request.method} not allowed; use GET` }, { allow: 'GET, HEAD' }),
  };
}

/** The core's routes: /metrics, /healthz, /readyz, and toncenter's JSON-RPC over the features' v2 methods. */
export function coreRoutes(deps: CoreRoutesDeps): readonly (readonly [string, Route])[] {
  const metrics: Route = {
    ...getOnly(METRICS_ENDPOINT, async (request) => {
      const body = await deps.metrics.render(request.acceptsGzip());
      const headers: Record<string, string> = { 'content-type': deps.metrics.contentType, vary: 'Accept-Encoding' };
      if (body.encoding === 'gzip') headers['content-encoding'] = 'gzip';
      return { status: 200, headers, body: body.encoding === 'gzip' ? body.parts : body };
    }),
    maxInFlight: deps.maxMetricsRequests,
    ...(deps.onMetricsInFlight === undefined ? {} : { onInFlight: deps.onMetricsInFlight }),
  };
  return [
    ['/api/v2/jsonRPC', createJsonRpcRoute(deps.v2Methods)],
    ['/metrics', metrics],
    ['/healthz', getOnly('healthz', () => serveHealthz())],
    ['/readyz', getOnly('readyz', () => serveReadyz(deps.notReady()))],
  ];
}

/** The route table: path → route. A path two parts both route is refused: at start, not at request time. */
export function routeTable(parts: readonly (readonly (readonly [string, Route])[])[]): ReadonlyMap<string, Route> {
  const table = new Map<string, Route>();
  for (const routes of parts) {
    for (const [path, route] of routes) {
      if (table.has(path)) throw new Error(`two routes for ${path}`);
      table.set(path, route);
    }
  }
  return table;
}
