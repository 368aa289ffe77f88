import { STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { ConnectionDrop } from '../domain/connections.js';
import { JSON_TYPE } from './response.js';
import { createSendDeadlines } from './send-deadlines.js';
import { MAX_HEADER_BYTES, type ConnectionLimits } from './limits.js';

/**
 * What a server does about its connections rather than its requests, beyond their slots
 * (connection-slots.ts): a response not taken within sendTimeoutMs cut, a request whose
 * headers or body do not come in time (or cannot be parsed) answered and closed whatever
 * the client does, and a TLS connection whose handshake failed destroyed without a word;
 * each counted.
 */
export interface GuardDeps {
  readonly limits: () => ConnectionLimits;
  readonly onConnection: (event: 'opened' | 'closed' | ConnectionDrop) => void;
  readonly now: () => number;
  readonly logger: Pick<Logger, 'debug' | 'error'>;
  readonly onServed: (endpoint: string, status: number) => void;
  /** Whether a TLS socket finished its handshake (connection-slots.ts). */
  readonly established: (socket: Socket) => boolean;
}

/** Responses still being sent, each cut when its send deadline passes. */
export interface SendTracker {
  track(res: ServerResponse): void;
}

/** A socket sent an error reply is destroyed this long after, whether or not the client took the reply. */
export const ERROR_REPLY_GRACE_MS = 2_000;

export function guardConnections(server: Server, deps: GuardDeps): SendTracker {
  const { limits, onConnection, now, logger, onServed } = deps;
  const sending = createSendDeadlines(now, (res) => {
    // Pipelined responses on one connection expire together: the connection is counted once.
    if (res.socket === null || res.socket.destroyed) return;
    onConnection('send_timeout');
    logger.debug({ remoteAddress: res.socket?.remoteAddress }, 'response not taken within the send timeout; connection cut');
    res.destroy();
  });
  server.once('close', () => sending.close());

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    // A TLS socket whose handshake never finished cannot carry a reply: a write into it never
    // completes, and the socket would never close.
    const tlsUnfinished = 'encrypted' in socket && !deps.established(socket);
    if (!socket.writable || tlsUnfinished) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    if (status === 408) onConnection('request_timeout');
    const reason = status === 431 ? `request line and headers exceed ${MAX_HEADER_BYTES} bytes` : status === 408 ? 'request timeout' : 'malformed request';
    const body = JSON.stringify({ error: reason });
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      `content-type: ${JSON_TYPE}`,
      'x-content-type-options: nosniff',
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
    // Closed once written, and in any case soon after: a client that never reads, or never
    // closes its half, would otherwise hold the descriptor for good.
    socket.once('finish', () => socket.destroy());
    const bound = setTimeout(() => socket.destroy(), ERROR_REPLY_GRACE_MS);
    bound.unref();
    socket.once('close', () => clearTimeout(bound));
    onServed('client_error', status);
  });
  return { track: (res) => sending.add(res, now() + limits().sendTimeoutMs) };
}
