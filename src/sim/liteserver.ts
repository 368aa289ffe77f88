import { createHash } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { FrameError, HANDSHAKE_BYTES, acceptHandshake, createFrameReader, ed25519FromSeed, frame, type Ed25519Keys } from '../ton/adnl.js';
import { ID, decodeRequest } from '../ton/lite-api.js';
import { encodeError } from '../ton/lite-answers.js';
import { TlReader, TlWriter } from '../ton/tl.js';
import type { SimChain } from './chain.js';
import { UNKNOWN_QUERY_CODE, createLiteAnswers } from './lite-answers.js';
import type { SimJettons } from './jettons.js';
import type { SimWallets } from './wallets.js';
import type { SimValidators } from './validators.js';

/**
 * The simulated chain as a liteserver: the server side of ADNL over TCP (handshake, the
 * two AES-CTR streams, frames, tcp.ping) answering the lite API calls tonwatch makes, with
 * the faults a real one shows. No npm package has this side; it shares ton/adnl.ts with
 * the client.
 */

export const LITESERVER_FAULTS = ['none', 'refuse', 'hang', 'garbage', 'error'] as const;
/**
 * - refuse: connections are closed as soon as they open;
 * - hang: the handshake completes, queries are never answered;
 * - garbage: each query is answered by a frame whose checksum is wrong;
 * - error: each query is answered by liteServer.error.
 */
export type LiteserverFault = (typeof LITESERVER_FAULTS)[number];
export const isLiteserverFault = (value: string): value is LiteserverFault => (LITESERVER_FAULTS as readonly string[]).includes(value);

/** The code of a simulated liteServer.error (the node's "not ready"-style failures are negative; this one is ours). */
export const SIM_LITESERVER_ERROR_CODE = 651;

export interface SimLiteserverOptions {
  readonly chain: SimChain;
  readonly wallets: SimWallets;
  /** Answers the jetton get-methods; without it every runSmcMethod fails. */
  readonly jettons?: SimJettons | undefined;
  readonly validators: SimValidators;
  readonly seed: number;
  readonly now: () => number;
  /** Answer getOutMsgQueueSizes as a node older than 2024.04 does: liteServer.error. */
  readonly withoutQueueSizes: boolean;
}

export interface SimLiteserver {
  readonly server: Server;
  /** Its ed25519 public key, base64: what a client's config names. */
  readonly publicKey: string;
  setFault(fault: LiteserverFault): void;
  setWithoutQueueSizes(value: boolean): void;
  /** Queries answered, by function, and connections by outcome. */
  stats(): Record<string, number>;
}

/** The key is derived from the seed, so a restarted simulator keeps its public key. */
export function simLiteserverKeys(seed: number): Ed25519Keys {
  return ed25519FromSeed(createHash('sha256').update(`tonwatch simulator liteserver ${seed}`).digest());
}

/**
 * One client's connection: the ADNL handshake (refused for another server's key), then
 * encrypted frames, each payload handed to `onPayload` with a writer of framed bytes back
 * through the connection's cipher. A broken frame closes the connection.
 */
function readConnection(
  socket: Socket,
  keys: Ed25519Keys,
  count: (key: string) => void,
  onPayload: (payload: Buffer, sendFramed: (framed: Buffer) => void) => void,
): void {
  let handshake: Buffer = Buffer.alloc(0);
  let ciphers: ReturnType<typeof acceptHandshake> = null;
  const reader = createFrameReader();
  /** Writes framed bytes through the connection's cipher (a garbage frame included). */
  const sendFramed = (framed: Buffer): void => {
    if (ciphers !== null && !socket.destroyed) socket.write(ciphers.encrypt.update(framed));
  };
  socket.on('data', (chunk: Buffer) => {
    let data = chunk;
    if (ciphers === null) {
      handshake = Buffer.concat([handshake, data]);
      if (handshake.length < HANDSHAKE_BYTES) return;
      ciphers = acceptHandshake(handshake.subarray(0, HANDSHAKE_BYTES), keys);
      if (ciphers === null) {
        count('handshakes_refused');
        socket.destroy();
        return;
      }
      data = handshake.subarray(HANDSHAKE_BYTES);
      sendFramed(frame(Buffer.alloc(0)));
      if (data.length === 0) return;
    }
    let payloads: Buffer[];
    try {
      payloads = reader.push(ciphers.decrypt.update(data));
    } catch (error) {
      count(error instanceof FrameError ? 'bad_frames' : 'errors');
      socket.destroy();
      return;
    }
    for (const payload of payloads) onPayload(payload, sendFramed);
  });
}

export function createSimLiteserver(options: SimLiteserverOptions): SimLiteserver {
  const { chain, wallets } = options;
  const keys = simLiteserverKeys(options.seed);
  let fault: LiteserverFault = 'none';
  let withoutQueueSizes = options.withoutQueueSizes;
  const counts: Record<string, number> = {};
  const count = (key: string): void => {
    counts[key] = (counts[key] ?? 0) + 1;
  };
  const sockets = new Set<Socket>();

  const answers = createLiteAnswers({ chain, wallets, jettons: options.jettons, validators: options.validators, seed: options.seed, now: options.now });

  const onConnection = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (fault === 'refuse') {
      count('connections_refused');
      socket.destroy();
      return;
    }
    count('connections');
    readConnection(socket, keys, count, onPayload);
  };

  const onPayload = (payload: Buffer, sendFramed: (framed: Buffer) => void): void => {
    const send = (message: Buffer): void => sendFramed(frame(message));
    try {
      const r = new TlReader(payload);
      const id = r.uint32();
      if (id === ID.tcpPing) {
        send(new TlWriter().id(ID.tcpPong).int64(r.int64()).build());
        return;
      }
      if (id !== ID.adnlQuery) return;
      const queryId = r.int256();
      const inner = new TlReader(r.bytes());
      inner.expect(ID.query, 'liteServer.query');
      const data = inner.bytes();
      let body: Buffer;
      try {
        const request = decodeRequest(data);
        count(request.kind);
        if (fault === 'hang') return;
        body = fault === 'error' ? encodeError(SIM_LITESERVER_ERROR_CODE, 'simulated liteserver failure') : answers.answer(request, withoutQueueSizes);
      } catch {
        body = encodeError(UNKNOWN_QUERY_CODE, 'unknown query');
      }
      const message = new TlWriter().id(ID.adnlAnswer).int256(queryId).bytes(body).build();
      if (fault === 'garbage') {
        const framed = frame(message);
        framed[framed.length - 1] = (framed[framed.length - 1] ?? 0) ^ 0xff;
        sendFramed(framed);
        return;
      }
      send(message);
    } catch {
      count('unreadable_queries');
    }
  };

  const server = createServer(onConnection);
  server.on('close', () => {
    for (const s of sockets) s.destroy();
  });
  return {
    server,
    publicKey: keys.publicKey.toString('base64'),
    setFault(value) {
      fault = value;
      if (value === 'refuse') for (const s of sockets) s.destroy();
    },
    setWithoutQueueSizes(value) {
      withoutQueueSizes = value;
    },
    stats: () => ({ ...counts }),
  };
}
