import { STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { JSON_TYPE } from './response.js';
import { createSendDeadlines } from './send-deadlines.js';
import { MAX_HEADER_BYTES, type ConnectionDrop, type ConnectionLimits } from './server.js';

/**
 * What a server does about its connections rather than its requests: at most
 * maxConnections open, a response not taken within sendTimeoutMs cut, a request whose
 * headers or body do not come in time (or cannot be parsed) answered and closed, whatever
 * the client does; each counted.
 */
export interface GuardDeps {
  readonly limits: () => ConnectionLimits;
  readonly onConnection: (event: 'opened' | 'closed' | ConnectionDrop) => void;
  readonly now: () => number;
  readonly logger: Pick<Logger, 'debug' | 'error'>;
  readonly onServed: (endpoint: string, status: number) => void;
}

/** Responses still being sent, each cut when its send deadline passes. */
export interface SendTracker {
  track(res: ServerResponse): void;
}

export function guardConnections(server: Server, deps: GuardDeps): SendTracker {
  const { limits, onConnection, now, logger, onServed } = deps;
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
  return { track: (res) => sending.add(res, now() + limits().sendTimeoutMs) };
}
