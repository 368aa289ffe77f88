import type { ServedResponse } from './response.js';

/** A served request as a route sees it, and a route: what the server's route table maps a path to. */

export interface ServedRequest {
  readonly method: string;
  /** The client's address (the proxy's, behind a reverse proxy). */
  readonly client?: string;
  readonly path: string;
  /** The raw query string without `?`, '' when absent. */
  readonly query: string;
  /**
   * Whether the client accepts a gzip-encoded body (Accept-Encoding names gzip with a
   * non-zero q). A function: Node builds a request's header object only when asked, and
   * only /metrics asks.
   */
  acceptsGzip(): boolean;
  /** The request body, read up to the route's maxBodyBytes: only for a POST to a route that takes one. */
  readonly body?: Buffer;
}

export interface Route {
  /** The `endpoint` label of tonwatch_served_requests_total. */
  readonly endpoint: string;
  handle(request: ServedRequest): ServedResponse | Promise<ServedResponse>;
  /**
   * At most this many requests of this route at once (answer to the last byte sent); beyond,
   * 503 with Retry-After. Read per request (a reload can change it); 0 means no limit.
   */
  readonly maxInFlight?: () => number;
  /** Told the route's number of requests in flight whenever it changes. */
  readonly onInFlight?: (inFlight: number) => void;
  /**
   * The route takes a POST body of at most this many bytes (read before `handle` is
   * called); a longer one is answered 413 and the connection closed.
   */
  readonly maxBodyBytes?: number;
}
