import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { FrameError, clientHandshake, createFrameReader, frame } from '../../ton/adnl.js';
import { ID, encodeRequest, type LiteRequest } from '../../ton/lite-api.js';
import { TlReader, TlWriter } from '../../ton/tl.js';
import { LiteTransportError } from './connection-error.js';
import { createPendingQueries } from './pending-queries.js';

/**
 * One ADNL-over-TCP connection to one liteserver: connect, handshake, then queries matched
 * to answers by query id. Written here rather than taken from `ton-lite-client`/`adnl`
 * (README, "Liteserver upstreams") so that its failures are ours to shape: every one is a
 * rejected promise with a LiteTransportError, none is an event nobody listens to, nothing
 * reconnects or retries by itself, and every wait has a deadline.
 */

export { LiteTransportError, type TransportFailure } from './connection-error.js';

export interface LiteEndpoint {
  readonly host: string;
  readonly port: number;
  /** 32 bytes. */
  readonly publicKey: Buffer;
}

export interface LiteConnection {
  /** Sends one function and resolves with the raw answer (a boxed TL object, liteServer.error included). */
  query(request: LiteRequest, timeoutMs: number, signal?: AbortSignal): Promise<Buffer>;
  readonly closed: boolean;
  close(): void;
}

/** A liteServer.query wrapped in an adnl.message.query under a fresh query id (hex). */
function adnlQueryOf(request: LiteRequest): { queryId: string; message: Buffer } {
  const queryId = randomBytes(32);
  const inner = new TlWriter().id(ID.query).bytes(encodeRequest(request)).build();
  return { queryId: queryId.toString('hex'), message: new TlWriter().id(ID.adnlQuery).int256(queryId).bytes(inner).build() };
}

/** An adnl.message.answer's query id (hex) and body; null for tcp.pong and anything else unasked for. Throws on an unreadable one. */
function adnlAnswerOf(payload: Buffer): { queryId: string; body: Buffer } | null {
  const r = new TlReader(payload);
  if (r.uint32() !== ID.adnlAnswer) return null;
  const queryId = r.int256().toString('hex');
  return { queryId, body: r.bytes() };
}

/** Connects and completes the handshake within timeoutMs, or rejects. */
export function openLiteConnection(endpoint: LiteEndpoint, timeoutMs: number, signal?: AbortSignal): Promise<LiteConnection> {
  return new Promise((resolveOpen, rejectOpen) => {
    const { packet, ciphers } = clientHandshake(endpoint.publicKey);
    const reader = createFrameReader();
    const pending = createPendingQueries();
    let ready = false;
    let closed = false;
    const socket: Socket = connect({ host: endpoint.host, port: endpoint.port });
    socket.setNoDelay(true);

    const fail = (error: LiteTransportError): void => {
      if (closed) return;
      closed = true;
      clearTimeout(openTimer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (!ready) rejectOpen(error);
      pending.failAll(error);
    };
    const onAbort = (): void => fail(new LiteTransportError('aborted', 'aborted while connecting'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const openTimer = setTimeout(() => fail(new LiteTransportError('timeout', `no ADNL handshake within ${timeoutMs} ms`)), timeoutMs);

    socket.on('connect', () => socket.write(packet));
    socket.on('error', (cause) => fail(new LiteTransportError('network', cause.message, { cause })));
    socket.on('close', () =>
      fail(new LiteTransportError('network', ready ? 'liteserver closed the connection' : 'liteserver closed the connection during the handshake')),
    );
    socket.on('data', (chunk: Buffer) => {
      let payloads: Buffer[];
      try {
        payloads = reader.push(ciphers.decrypt.update(chunk));
      } catch (cause) {
        fail(new LiteTransportError('bad_body', cause instanceof FrameError ? cause.message : 'unreadable frame', { cause }));
        return;
      }
      for (const payload of payloads) {
        if (!ready) {
          if (payload.length !== 0) {
            fail(new LiteTransportError('bad_body', 'the handshake answer is not an empty frame'));
            return;
          }
          ready = true;
          clearTimeout(openTimer);
          signal?.removeEventListener('abort', onAbort);
          resolveOpen(connection);
          continue;
        }
        onPayload(payload);
      }
    });

    const onPayload = (payload: Buffer): void => {
      try {
        const answer = adnlAnswerOf(payload);
        if (answer !== null) pending.answer(answer.queryId, answer.body);
      } catch (cause) {
        fail(new LiteTransportError('bad_body', 'unreadable adnl.message.answer', { cause }));
      }
    };

    const connection: LiteConnection = {
      get closed() {
        return closed;
      },
      close: () => fail(new LiteTransportError('aborted', 'connection closed')),
      query(request, queryTimeoutMs, querySignal) {
        if (closed) return Promise.reject(new LiteTransportError('network', 'connection is closed'));
        if (querySignal?.aborted === true) return Promise.reject(new LiteTransportError('aborted', 'aborted'));
        const { queryId, message } = adnlQueryOf(request);
        return pending.ask(queryId, () => socket.write(ciphers.encrypt.update(frame(message))), queryTimeoutMs, querySignal);
      },
    };
  });
}
