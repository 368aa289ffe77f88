import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable, pipeline } from 'node:stream';
import type { Logger } from 'pino';
import type { WebConfig } from '../domain/web-config.js';
import { createBasicAuth, type AuthVerdict } from './basic-auth.js';
import { bodyLength, isStreamed, JSON_TYPE, jsonResponse, type ServedResponse } from './response.js';
import { createTlsServer } from './tls.js';

/**
 * The HTTP face: node:http with bounded URL/header sizes and timeouts, a fixed route table,
 * and nothing a client sends able to crash the process. Building the server and listening
 * are separate, so tests listen on port 0.
 */

export interface ServedRequest {
  readonly method: string;
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

/** Why a connection was cut or refused (tonwatch_http_connections_dropped_total). */
export type ConnectionDrop = 'max_connections' | 'request_timeout' | 'send_timeout';

/** Bounds on what clients may hold; read when used, so a reload applies them. */
export interface ConnectionLimits {
  /** Connections open at once; a new one beyond is closed at once. */
  readonly maxConnections: number;
  /** A response not taken by the client within this many ms is cut. */
  readonly sendTimeoutMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { maxConnections: 1000, sendTimeoutMs: 60_000 };

export interface HttpServerDeps {
  readonly routes: ReadonlyMap<string, Route>;
  readonly logger: Logger;
  readonly onServed: (endpoint: string, status: number) => void;
  /** Connection bounds in force (default DEFAULT_CONNECTION_LIMITS). */
  readonly limits?: () => ConnectionLimits;
  /** Told of every connection opened and closed, and why one was cut or refused. */
  readonly onConnection?: (event: 'opened' | 'closed' | ConnectionDrop) => void;
  /** The process clock (domain/clock.ts), for send timeouts; default Date.now. */
  readonly now?: () => number;
  /**
   * The web config in force, read per request (a reload swaps it): basic auth and headers
   * on every path. TLS is decided when the server is built: from the web config then.
   */
  readonly web?: () => WebConfig | null;
}

/** What every refused credential gets: the same answer for a wrong user, a wrong password, or none. */
const UNAUTHORIZED = jsonResponse(401, { error: 'unauthorized' }, { 'www-authenticate': 'Basic realm="tonwatch", charset="UTF-8"' });
const AUTH_BUSY = jsonResponse(503, { error: 'too many password checks in progress; retry shortly' }, { 'retry-after': '1' });

/**
 * Request line plus headers. A walletStates GET with 1024 raw addresses, each `address=`
 * repeated and `:` percent-encoded, is about 80 KiB; this leaves room for proxies' headers.
 */
export const MAX_HEADER_BYTES = 128 * 1024;

export function createHttpServer(deps: HttpServerDeps): Server {
  const { routes, logger, onServed } = deps;
  const web = deps.web ?? (() => null);
  const inFlight = new Map<Route, number>();
  const auth = createBasicAuth();
  const limits = deps.limits ?? (() => DEFAULT_CONNECTION_LIMITS);
  const onConnection = deps.onConnection ?? (() => undefined);
  const now = deps.now ?? Date.now;
  // Node checks the header and request timeouts every connectionsCheckingInterval (30 s by
  // default): a slowloris connection lived 27 s past a 10 s header timeout.
  const options = {
    maxHeaderSize: MAX_HEADER_BYTES,
    requestTimeout: 15_000,
    headersTimeout: 10_000,
    keepAliveTimeout: 5_000,
    connectionsCheckingInterval: 1_000,
  };
  // TLS or not is decided by the web config at build time; a reload swaps certificates only.
  const tls = web()?.tls ?? null;
  const server: Server = tls === null ? createServer(options, handle) : createTlsServer(options, tls, handle, () => web()?.tls ?? null, logger);

  /** Authenticates a request when the web config has users, then answers it. */
  function handle(req: IncomingMessage, res: ServerResponse): void {
    const config = web();
    if (config === null) {
      answer(req, res);
      return;
    }
    for (const name in config.headers) res.setHeader(name, config.headers[name] ?? '');
    if (!hasUsers(config)) {
      answer(req, res);
      return;
    }
    const verdict = auth.check(config.users, req.headers.authorization);
    if (verdict === true) answer(req, res);
    else if (verdict === false || verdict === 'busy') refuse(req, res, verdict);
    else
      verdict.then(
        (ok) => (ok === true ? answer(req, res) : refuse(req, res, ok)),
        (err: unknown) => {
          logger.error({ err }, 'password check failed');
          refuse(req, res, false);
        },
      );
  }

  function refuse(req: IncomingMessage, res: ServerResponse, verdict: Exclude<AuthVerdict, true>): void {
    send(req, res, endpointOf(req), verdict === 'busy' ? AUTH_BUSY : UNAUTHORIZED);
  }

  function endpointOf(req: IncomingMessage): string {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    return routes.get(q === -1 ? url : url.slice(0, q))?.endpoint ?? 'not_found';
  }

  /** Answers one request; a handler's answer is written at once when it is not a promise (no microtask hop on the hot paths). */
  function answer(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const route = routes.get(path);
    const endpoint = route?.endpoint ?? 'not_found';
    if (route?.maxInFlight !== undefined && !admit(route, res)) {
      const limit = route.maxInFlight();
      send(req, res, endpoint, jsonResponse(503, { error: `too many ${path} requests at once (limit ${limit}); retry shortly` }, { 'retry-after': '1' }));
      return;
    }
    const request: ServedRequest = {
      method: req.method ?? 'GET',
      path,
      query: q === -1 ? '' : url.slice(q + 1),
      acceptsGzip: () => acceptsGzip(req.headers['accept-encoding']),
    };
    if (route?.maxBodyBytes !== undefined && request.method === 'POST') {
      readBody(req, route.maxBodyBytes).then(
        (body) => (body === null ? tooLarge(req, res, endpoint, route.maxBodyBytes ?? 0) : dispatch(req, res, route, endpoint, { ...request, body })),
        () => res.destroy(),
      );
      return;
    }
    dispatch(req, res, route, endpoint, request);
  }

  function dispatch(req: IncomingMessage, res: ServerResponse, route: Route | undefined, endpoint: string, request: ServedRequest): void {
    let response: ServedResponse | Promise<ServedResponse>;
    try {
      response = route ? route.handle(request) : jsonResponse(404, { error: `no such endpoint: ${request.path.slice(0, 200)}` });
    } catch (err) {
      response = failed(err, request.path);
    }
    const { path } = request;
    if (response instanceof Promise) {
      response.then(
        (answer) => send(req, res, endpoint, answer),
        (err: unknown) => send(req, res, endpoint, failed(err, path)),
      );
    } else send(req, res, endpoint, response);
  }

  /** Answers 413 and closes the connection: the rest of the body is not read. */
  function tooLarge(req: IncomingMessage, res: ServerResponse, endpoint: string, limit: number): void {
    const response = jsonResponse(413, { ok: false, error: `request body exceeds ${limit} bytes`, code: 413 }, { connection: 'close' });
    send(req, res, endpoint, response);
  }

  /** Counts the request against its route's limit until its response is closed; false when the limit is reached. */
  function admit(route: Route, res: ServerResponse): boolean {
    const now = inFlight.get(route) ?? 0;
    const limit = route.maxInFlight?.() ?? 0;
    if (limit > 0 && now >= limit) return false;
    inFlight.set(route, now + 1);
    route.onInFlight?.(now + 1);
    res.once('close', () => {
      const left = (inFlight.get(route) ?? 1) - 1;
      inFlight.set(route, left);
      route.onInFlight?.(left);
    });
    return true;
  }

  function failed(err: unknown, path: string): ServedResponse {
    logger.error({ err, path }, 'handler failed');
    return jsonResponse(500, { error: 'internal error' });
  }

  function send(req: IncomingMessage, res: ServerResponse, endpoint: string, response: ServedResponse): void {
    onServed(endpoint, response.status);
    if (res.destroyed) return;
    const { body } = response;
    let headers = response.headers;
    // A header the web config sets (http_server_config.headers, set on `res` already) wins
    // over the handler's own, the status page's Content-Security-Policy included.
    const config = web();
    if (config !== null && hasHeaders(config)) headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !res.hasHeader(name)));
    // Handlers that answer from a cache give content-length themselves, computed once.
    res.writeHead(response.status, headers['content-length'] === undefined ? { ...headers, 'content-length': String(bodyLength(body)) } : headers);
    if (req.method === 'HEAD') res.end();
    else if (typeof body === 'string' || Buffer.isBuffer(body)) res.end(body);
    else if (isStreamed(body)) {
      // One part at a time: the next is made once the socket took the last.
      pipeline(Readable.from(body.stream(), { highWaterMark: 1 }), res, (err) => {
        // A client that went away is not an error; a part that could not be made is (the response is cut short).
        if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE') logger.error({ err, endpoint }, 'streamed response failed');
      });
    } else {
      // Corked: the parts (dozens of gzip members for /metrics) go to the socket in one
      // writev, not a system call each.
      res.cork();
      for (const part of body) res.write(part);
      res.end();
      res.uncork();
    }
    // What the kernel did not take at once waits for the client, for sendTimeoutMs at most.
    if (!res.writableFinished && (isStreamed(body) || (res.socket?.writableLength ?? 0) > 0)) sending.add(res, now() + limits().sendTimeoutMs);
  }

  const sending = createSendDeadlines(now, (res) => {
    // Pipelined responses on one connection expire together: the connection is counted once.
    if (res.socket === null || res.socket.destroyed) return;
    onConnection('send_timeout');
    logger.debug({ remoteAddress: res.socket?.remoteAddress }, 'response not taken within the send timeout; connection cut');
    res.destroy();
  });
  server.on('connection', (socket: Socket) => {
    server.maxConnections = limits().maxConnections;
    onConnection('opened');
    socket.once('close', () => onConnection('closed'));
  });
  server.on('drop', () => {
    server.maxConnections = limits().maxConnections;
    onConnection('max_connections');
  });
  server.once('close', () => sending.close());
  server.maxConnections = limits().maxConnections;

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    if (status === 408) onConnection('request_timeout');
    const reason = status === 431 ? `request line and headers exceed ${MAX_HEADER_BYTES} bytes` : status === 408 ? 'request timeout' : 'malformed request';
    const body = JSON.stringify({ error: reason });
    // Closed once written, whatever the client does: a half-closed socket it never closes would
    // hold its descriptor for good.
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      `content-type: ${JSON_TYPE}`,
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
    socket.once('finish', () => socket.destroy());
    onServed('client_error', status);
  });
  return server;
}

/**
 * Responses still being sent, each with its deadline; one sweep a second cuts those past
 * theirs (a timer per response would cost the hot paths, which finish at once).
 */
function createSendDeadlines(now: () => number, expired: (res: ServerResponse) => void) {
  const deadlines = new Map<ServerResponse, number>();
  let sweep: NodeJS.Timeout | null = null;
  return {
    add(res: ServerResponse, deadline: number): void {
      deadlines.set(res, deadline);
      res.once('close', () => deadlines.delete(res));
      sweep ??= setInterval(() => {
        const at = now();
        for (const [pending, until] of deadlines) {
          if (at < until) continue;
          deadlines.delete(pending);
          expired(pending);
        }
        if (deadlines.size === 0 && sweep !== null) {
          clearInterval(sweep);
          sweep = null;
        }
      }, 1_000).unref();
    },
    close(): void {
      if (sweep !== null) clearInterval(sweep);
      sweep = null;
    },
  };
}

/**
 * The whole body of a request, or null when it is (or says it is) longer than `limit`
 * bytes; then reading stops. Rejects when the client goes away mid-body.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer): void => {
      length += chunk.length;
      if (length > limit) {
        req.off('data', onData);
        req.pause();
        resolve(null);
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks, length)));
    req.once('error', reject);
    req.once('aborted', () => reject(new Error('client went away mid-body')));
  });
}

/** A fact about a web config, worked out once per config object (a reload makes a new one). */
function perConfig(compute: (config: WebConfig) => boolean): (config: WebConfig) => boolean {
  const known = new WeakMap<WebConfig, boolean>();
  return (config) => {
    let value = known.get(config);
    if (value === undefined) {
      value = compute(config);
      known.set(config, value);
    }
    return value;
  };
}

/** Whether a web config asks for basic auth. */
const hasUsers = perConfig((config) => Object.keys(config.users).length > 0);
/** Whether a web config sets response headers. */
const hasHeaders = perConfig((config) => Object.keys(config.headers).length > 0);

/** Whether an Accept-Encoding header allows gzip: named (or `*`), and not with q=0. */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined || header === '') return false;
  // The common case, as Prometheus and browsers send it.
  if (header === 'gzip' || header.startsWith('gzip,') || header.startsWith('gzip, ')) return true;
  let star = false;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (coding.trim() === 'gzip') return allowed;
    if (coding.trim() === '*') star = allowed;
  }
  return star;
}
