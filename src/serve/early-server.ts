import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebConfig } from '../domain/web-config.js';
import type { QueueSizesSnapshot } from '../snapshot/types.js';
import type { ConnectionDrop } from './server.js';
import { sendTrackerOf, type GuardDeps } from './connection-guards.js';
import { closeServer, listen } from './lifecycle.js';
import { JSON_TYPE } from './response.js';
import { createHttpServer, type AdoptableServer, type Route } from './server.js';
import { createQueueSizesHandler, QUEUE_SIZES_PATHS, queueSizesRoute } from './v2-queue-sizes.js';

/**
 * The server a start listens with before most of its code is loaded (start-early.ts): the
 * same server (serve/server.ts: limits, timeouts, headers, guards), answering
 * getOutMsgQueueSizes from the persisted queue sizes, and holding every other request
 * until the daemon takes the server over (createHttpServer's `adopted`). Then the held
 * requests go to the daemon, and what was counted and logged meanwhile is told to its
 * hooks (tonwatch_served_requests_total, the connection gauges, the log).
 */
/** What the early server needs of the config (config/early-record.ts keeps it for the next start). */
export interface EarlySettings {
  readonly host: string;
  readonly port: number;
  /** The web config's http_server_config.headers; {} without one. */
  readonly headers: Readonly<Record<string, string>>;
  readonly maxConnections: number;
  readonly sendTimeoutMs: number;
  readonly maxAgeSeconds: number;
}

export interface EarlyServer extends AdoptableServer {
  readonly address: AddressInfo;
  readonly settings: EarlySettings;
  /** Requests answered here, and held for the daemon, so far. */
  readonly counts: { readonly answered: number; readonly held: number };
  /** From now on the daemon's listener (given to prepare) answers, the held requests first. */
  handOver(): AddressInfo;
  /** Closes the server instead (the daemon's config does not fit it, or the start failed); held requests get 503. */
  close(): Promise<void>;
}

export interface EarlyServerOptions {
  readonly settings: EarlySettings;
  /** The persisted queue sizes, `fetchedAt` on the process clock. */
  readonly queueSizes: QueueSizesSnapshot;
  /** The process clock (domain/clock.ts). */
  readonly now: () => number;
  readonly wallOffset: () => number;
}

/** Log lines kept for the daemon's logger, at most: a start's few, or a flood's first. */
const MAX_KEPT_LOG_LINES = 100;
/** How long requests in flight get to finish when the early server is closed instead of handed over. */
const CLOSE_GRACE_MS = 1_000;

/** Listens as the record says; null when it cannot (the daemon's own start then says why). */
export async function startEarlyServer(options: EarlyServerOptions): Promise<EarlyServer | null> {
  const { settings, queueSizes, now } = options;
  let daemon: GuardDeps | null = null;
  let prepared: { listener: RequestListener; guards: GuardDeps } | null = null;
  const held: [IncomingMessage, ServerResponse][] = [];
  const counts = { answered: 0, held: 0 };
  // What happened before the daemon's hooks were there, told to them at the hand-over.
  const served = new Map<string, Map<number, number>>();
  const connections = new Map<'opened' | 'closed' | ConnectionDrop, number>();
  const lines: ['error' | 'debug', unknown[]][] = [];
  const log =
    (level: 'error' | 'debug') =>
    (...args: unknown[]): void => {
      if (daemon !== null) tell(daemon.logger, level, args);
      else if (lines.length < MAX_KEPT_LOG_LINES) lines.push([level, args]);
    };
  const bump = <K>(map: Map<K, number>, key: K): void => void map.set(key, (map.get(key) ?? 0) + 1);

  const handler = createQueueSizesHandler(options.wallOffset);
  const route = queueSizesRoute((request) => {
    counts.answered += 1;
    return handler.serve(queueSizes, { method: request.method, now: now(), maxAgeSeconds: settings.maxAgeSeconds, nextPollDueAt: null });
  });
  const web: WebConfig | null = Object.keys(settings.headers).length === 0 ? null : { file: '', files: [], tls: null, users: {}, headers: settings.headers };
  const server = createHttpServer({
    routes: new Map<string, Route>(QUEUE_SIZES_PATHS.map((path) => [path, route])),
    logger: { error: log('error'), debug: log('debug') },
    onServed: (endpoint, status) => {
      if (daemon !== null) return daemon.onServed(endpoint, status);
      const statuses = served.get(endpoint) ?? new Map<number, number>();
      served.set(endpoint, statuses);
      bump(statuses, status);
    },
    limits: () => daemon?.limits() ?? { maxConnections: settings.maxConnections, sendTimeoutMs: settings.sendTimeoutMs },
    onConnection: (event) => (daemon === null ? bump(connections, event) : daemon.onConnection(event)),
    now: () => daemon?.now() ?? now(),
    web: () => web,
    unrouted: (req, res) => {
      held.push([req, res]);
      counts.held += 1;
      return true;
    },
  });
  const tracker = sendTrackerOf(server);
  if (tracker === undefined) throw new Error('the early server has no connection guards');
  let address: AddressInfo;
  try {
    address = await listen(server, settings.host, settings.port);
  } catch {
    return null;
  }
  return {
    server,
    address,
    settings,
    counts,
    prepare(listener, guards) {
      prepared = { listener, guards };
      // The early server's guards stay, their hooks the daemon's from the hand-over.
      return tracker;
    },
    handOver() {
      if (prepared === null) throw new Error('the early server was handed over before the daemon prepared it');
      const { listener, guards } = prepared;
      daemon = guards;
      server.removeAllListeners('request');
      server.on('request', listener);
      for (const [endpoint, statuses] of served) for (const [status, n] of statuses) for (let i = 0; i < n; i += 1) guards.onServed(endpoint, status);
      for (const [event, n] of connections) for (let i = 0; i < n; i += 1) guards.onConnection(event);
      for (const [level, args] of lines) tell(guards.logger, level, args);
      for (const [req, res] of held.splice(0)) listener(req, res);
      return address;
    },
    async close() {
      for (const [, res] of held.splice(0)) {
        if (res.destroyed) continue;
        res.writeHead(503, { 'content-type': JSON_TYPE, 'retry-after': '1', connection: 'close' });
        res.end(JSON.stringify({ error: 'the daemon is restarting its server; retry shortly' }));
      }
      await closeServer(server, CLOSE_GRACE_MS);
    },
  };
}

/** A log call made before the daemon's logger was there, made on it. */
function tell(logger: GuardDeps['logger'], level: 'error' | 'debug', [first, message, ...rest]: unknown[]): void {
  logger[level](first, typeof message === 'string' ? message : undefined, ...rest);
}
