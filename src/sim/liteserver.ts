import { createHash } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { beginCell, convertToMerkleProof } from '@ton/core';
import { serializeRoots } from '../ton/boc.js';
import { FrameError, HANDSHAKE_BYTES, acceptHandshake, createFrameReader, ed25519FromSeed, frame, type Ed25519Keys } from '../ton/adnl.js';
import {
  ID,
  decodeRequest,
  encodeAccountState,
  encodeAllShardsInfo,
  encodeBlockOutMsgQueueSize,
  encodeError,
  encodeMasterchainInfo,
  encodeOutMsgQueueSizes,
  type LiteBlockId,
  type LiteRequest,
} from '../ton/lite-api.js';
import { parseSignedShard, shardContains } from '../ton/shard.js';
import { buildShardHashes } from '../ton/shard-hashes.js';
import { TlReader, TlWriter } from '../ton/tl.js';
import { accountCellOf, stateProofOf } from './account-cells.js';
import type { SimChain, SimShardQueue } from './chain.js';
import { WALLET_ID, type SimWallets } from './wallets.js';

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
/** The code the simulator answers a function it does not know with (and getOutMsgQueueSizes, when told to act as an older node). */
const UNKNOWN_QUERY_CODE = -400;

export interface SimLiteserverOptions {
  readonly chain: SimChain;
  readonly wallets: SimWallets;
  readonly seed: number;
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

const bytes32 = (base64: string): Buffer => Buffer.from(base64, 'base64');
const blockOf = (q: SimShardQueue): LiteBlockId => ({
  workchain: q.workchain,
  shard: parseSignedShard(q.shard),
  seqno: q.seqno,
  rootHash: bytes32(q.rootHash),
  fileHash: bytes32(q.fileHash),
});

/** The key is derived from the seed, so a restarted simulator keeps its public key. */
export function simLiteserverKeys(seed: number): Ed25519Keys {
  return ed25519FromSeed(createHash('sha256').update(`tonwatch simulator liteserver ${seed}`).digest());
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

  const masterchain = (): SimShardQueue => chain.queues()[0] as SimShardQueue;
  /** The blocks last answered as current, kept a while: a real node keeps history, the simulated chain does not. */
  const recent = new Map<string, SimShardQueue>();
  const blockKey = (workchain: number, shard: bigint, seqno: number): string => `${workchain}:${shard}:${seqno}`;
  const remember = (queues: readonly SimShardQueue[]): void => {
    for (const q of queues) recent.set(blockKey(q.workchain, parseSignedShard(q.shard), q.seqno), q);
    for (const key of recent.keys()) {
      if (recent.size <= 256) break;
      recent.delete(key);
    }
  };

  const answer = (request: LiteRequest): Buffer => {
    const queues = chain.queues();
    if (request.kind === 'getMasterchainInfo' || request.kind === 'getAllShardsInfo') remember(queues);
    switch (request.kind) {
      case 'getMasterchainInfo': {
        const last = blockOf(masterchain());
        const zero = createHash('sha256').update(`${options.seed}:zerostate`).digest();
        return encodeMasterchainInfo({
          last,
          stateRootHash: createHash('sha256').update(`state:${last.seqno}`).digest(),
          init: { workchain: -1, rootHash: zero, fileHash: zero },
        });
      }
      case 'getAllShardsInfo':
        return encodeAllShardsInfo(blockOf(masterchain()), buildShardHashes(queues.filter((q) => q.workchain !== -1).map(blockOf)));
      case 'getOutMsgQueueSizes':
        if (withoutQueueSizes) return encodeError(UNKNOWN_QUERY_CODE, 'unknown query');
        return encodeOutMsgQueueSizes({ shards: queues.map((q) => ({ id: blockOf(q), size: q.size })), extMsgQueueSizeLimit: chain.limit });
      case 'getBlockOutMsgQueueSize': {
        // The latest blocks, else one answered a moment ago (a block may have come between getAllShardsInfo and this).
        const key = blockKey(request.id.workchain, request.id.shard, request.id.seqno);
        const found = queues.find((q) => blockKey(q.workchain, parseSignedShard(q.shard), q.seqno) === key) ?? recent.get(key);
        if (found === undefined) return encodeError(-400, 'block not found');
        return encodeBlockOutMsgQueueSize(blockOf(found), found.size);
      }
      case 'getAccountState':
        return accountState(request.workchain, request.account);
    }
  };

  const accountState = (workchain: number, hash: Buffer): Buffer => {
    const raw = `${workchain}:${hash.toString('hex').toUpperCase()}`;
    const account = wallets.account(raw);
    const queues = chain.queues();
    const mc = blockOf(masterchain());
    // The shard block that holds the account: the masterchain's for workchain -1, else the basechain shard whose prefix it has.
    const prefix = hash.readBigUInt64BE(0);
    const holder = queues.find((q) => q.workchain === workchain && shardContains(parseSignedShard(q.shard), prefix));
    const shardblk = holder ? blockOf(holder) : mc;
    const cell = account === undefined ? null : accountCellOf(account, WALLET_ID[account.kind]);
    if (account === undefined || cell === null) {
      return encodeAccountState({ id: mc, shardblk, shardProof: Buffer.alloc(0), proof: Buffer.alloc(0), state: Buffer.alloc(0) });
    }
    const stateProof = stateProofOf(account, cell, { workchain: shardblk.workchain, shard: shardblk.shard, seqno: shardblk.seqno });
    // Two roots, as a liteserver sends them: the shard block's proof (a stand-in header here), then the state's.
    const blockProof = convertToMerkleProof(beginCell().storeUint(0x11ef55aa, 32).storeInt(shardblk.workchain, 32).storeUint(shardblk.seqno, 32).endCell());
    return encodeAccountState({ id: mc, shardblk, shardProof: Buffer.alloc(0), proof: serializeRoots([blockProof, stateProof]), state: cell.toBoc() });
  };

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
    let handshake: Buffer = Buffer.alloc(0);
    let ciphers: ReturnType<typeof acceptHandshake> = null;
    const reader = createFrameReader();
    /** Writes framed bytes through the connection's cipher (a garbage frame included). */
    const sendFramed = (framed: Buffer): void => {
      if (ciphers !== null && !socket.destroyed) socket.write(ciphers.encrypt.update(framed));
    };
    const send = (payload: Buffer): void => sendFramed(frame(payload));
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
        send(Buffer.alloc(0));
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
        body = fault === 'error' ? encodeError(SIM_LITESERVER_ERROR_CODE, 'simulated liteserver failure') : answer(request);
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
