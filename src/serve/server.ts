import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ConnectionDrop } from '../domain/connections.js';
import type { Logger } from 'pino';
import { perObject } from '../domain/per-object.js';
import type { WebConfig } from '../domain/web-config.js';
import { acceptsGzip } from './accept-encoding.js';
import { createConnectionSlots } from './connection-slots.js';
import { createGate } from './gate.js';
import { createPasswordChecks, type PasswordChecks } from './password-checks.js';
import { guardConnections } from './connection-guards.js';
import { readBody } from './request-body.js';
import { isStreamed, jsonResponse, type ServedResponse } from './response.js';
import { createInFlightLimits } from './in-flight.js';
import type { createTlsServer } from './tls.js';
import { writeResponse } from './write-response.js';
import { DEFAULT_CONNECTION_LIMITS, MAX_HEADER_BYTES, type ConnectionLimits } from './limits.js';
import type { Route, ServedRequest } from './route.js';

/**
 * The HTTP face: node:http with bounded URL/header sizes and timeouts, a fixed route table,
 * and nothing a client sends able to crash the process. Building the server and listening
 * are separate, so tests listen on port 0.
 */

/** What the server logs: a handler's failure, a connection cut. */
export type ServerLogger = Pick<Logger, 'error' | 'debug'>;

export interface HttpServerDeps {
  readonly routes: ReadonlyMap<string, Route>;
  readonly logger: ServerLogger;
  readonly onServed: (endpoint: string, status: number) => void;
  /** Connection bounds in force (default DEFAULT_CONNECTION_LIMITS). */
  readonly limits?: () => ConnectionLimits;
  /** Told of every connection opened and closed, and why one was cut or refused. */
  readonly onConnection?: (event: 'opened' | 'closed' | ConnectionDrop) => void;
  /** The process clock (domain/clock.ts), for send timeouts and the password failure throttle; default Date.now. */
  readonly now?: () => number;
  /** Host header values answered, lowercase (listen.allowedHosts); empty or absent: any. */
  readonly allowedHosts?: () => ReadonlySet<string>;
  /** Where basic auth's bcrypt checks run (default: a worker thread of the server's own, stopped when it closes). */
  readonly passwords?: PasswordChecks;
  /**
   * The web config in force, read per request (a reload swaps it): basic auth and headers
   * on every path. TLS is decided when the server is built: from the web config then.
   */
  readonly web?: () => WebConfig | null;
  /** Builds the server when the web config asks for TLS (serve/tls.ts): given by who may need it, so node:https loads only then. */
  readonly tlsServer?: typeof createTlsServer;
}

// Node checks the header and request timeouts every connectionsCheckingInterval (30 s by
// default): a slowloris connection lived 27 s past a 10 s header timeout.
const SERVER_OPTIONS = {
  maxHeaderSize: MAX_HEADER_BYTES,
  requestTimeout: 15_000,
  headersTimeout: 10_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
};

/** Builds the server (not listening yet: serve/lifecycle.ts listens). */
export function createHttpServer(deps: HttpServerDeps): Server {
  const { routes, logger, onServed } = deps;
  const web = deps.web ?? (() => null);
  const admit = createInFlightLimits();
  const limits = deps.limits ?? (() => DEFAULT_CONNECTION_LIMITS);
  const onConnection = deps.onConnection ?? (() => undefined);
  const now = deps.now ?? Date.now;
  const passwords = deps.passwords ?? createPasswordChecks();
  const noHosts: ReadonlySet<string> = new Set();
  const gate = createGate({ web, allowedHosts: deps.allowedHosts ?? (() => noHosts), passwords, now, logger });

  const server = plainOrTls(deps, web, handle);
  if (deps.passwords === undefined) server.once('close', () => void passwords.close());

  /** Passes the request through the gate (Host, headers, basic auth), then answers it. */
  function handle(req: IncomingMessage, res: ServerResponse): void {
    gate.check(
      req,
      res,
      () => answer(req, res),
      (refusal) => send(req, res, routes.get(pathOf(req.url ?? '/'))?.endpoint ?? 'not_found', refusal),
    );
  }

  /** Answers one request; a handler's answer is written at once when it is not a promise (no microtask hop on the hot paths). */
  function answer(req: IncomingMessage, res: ServerResponse): void {
    const request = servedRequestOf(req);
    const { path } = request;
    const route = routes.get(path);
    const endpoint = route?.endpoint ?? 'not_found';
    if (route?.maxInFlight !== undefined && !admit(route, res)) {
      const limit = route.maxInFlight();
      send(req, res, endpoint, jsonResponse(503, { error: `too many ${path} requests at once (limit ${limit}); retry shortly` }, { 'retry-after': '1' }));
      return;
    }
    if (route?.maxBodyBytes !== undefined && request.method === 'POST') {
      readBody(req, route.maxBodyBytes).then(
        (body) => (body === null ? send(req, res, endpoint, tooLarge(route.maxBodyBytes ?? 0)) : dispatch(req, res, route, endpoint, { ...request, body })),
        () => res.destroy(),
      );
      return;
    }
    dispatch(req, res, route, endpoint, request);
  }

  function dispatch(req: IncomingMessage, res: ServerResponse, route: Route | undefined, endpoint: string, request: ServedRequest): void {
    const response = answerOf(route, request, failed);
    const { path } = request;
    if (response instanceof Promise) {
      response.then(
        (answer) => send(req, res, endpoint, answer),
        (err: unknown) => send(req, res, endpoint, failed(err, path)),
      );
    } else send(req, res, endpoint, response);
  }

  function failed(err: unknown, path: string): ServedResponse {
    logger.error({ err, path }, 'handler failed');
    return jsonResponse(500, { error: 'internal error' });
  }

  function send(req: IncomingMessage, res: ServerResponse, endpoint: string, response: ServedResponse): void {
    onServed(endpoint, response.status);
    if (res.destroyed) return;
    // A header the web config sets (http_server_config.headers, set on `res` already) wins
    // over the handler's own, the status page's Content-Security-Policy included.
    const config = web();
    const skip = config !== null && hasHeaders(config) ? (name: string) => res.hasHeader(name) : null;
    writeResponse(req, res, response, skip, (err) => logger.error({ err, endpoint }, 'streamed response failed'));
    // What the kernel did not take at once waits for the client, for sendTimeoutMs at most.
    if (!res.writableFinished && (isStreamed(response.body) || (res.socket?.writableLength ?? 0) > 0)) sending.track(res);
  }

  const slots = createConnectionSlots(server, limits, onConnection);
  const sending = guardConnections(server, { limits, onConnection, now, logger, onServed, established: (socket) => slots.established(socket) });
  return server;
}

/**
 * The node:http server, or node:https's when the web config asks for TLS: decided at build
 * time; a reload swaps certificates only.
 */
function plainOrTls(deps: HttpServerDeps, web: () => WebConfig | null, handle: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const tls = web()?.tls ?? null;
  if (tls === null) return createServer(SERVER_OPTIONS, handle);
  if (deps.tlsServer === undefined) throw new Error('the web config asks for TLS, and this server cannot speak it');
  return deps.tlsServer(SERVER_OPTIONS, tls, handle, () => web()?.tls ?? null, deps.logger);
}

/** The request as handlers see it: its path and query apart, the client's address, whether it takes gzip. */
function servedRequestOf(req: IncomingMessage): ServedRequest {
  const url = req.url ?? '/';
  const path = pathOf(url);
  return {
    method: req.method ?? 'GET',
    client: req.socket.remoteAddress ?? '',
    path,
    query: path.length === url.length ? '' : url.slice(path.length + 1),
    acceptsGzip: () => acceptsGzip(req.headers['accept-encoding']),
  };
}

/** 413, closing the connection: the rest of the body is not read. */
function tooLarge(limit: number): ServedResponse {
  return jsonResponse(413, { ok: false, error: `request body exceeds ${limit} bytes`, code: 413 }, { connection: 'close' });
}

/** The route's answer (404 without a route), or `failed`'s when the handler throws. */
function answerOf(
  route: Route | undefined,
  request: ServedRequest,
  failed: (err: unknown, path: string) => ServedResponse,
): ServedResponse | Promise<ServedResponse> {
  try {
    return route ? route.handle(request) : jsonResponse(404, { error: `no such endpoint: ${request.path.slice(0, 200)}` });
  } catch (err) {
    return failed(err, request.path);
  }
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Whether a web config sets response headers. */
const hasHeaders = perObject((config: WebConfig) => Object.keys(config.headers).length > 0);
