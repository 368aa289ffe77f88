import { randomBytes } from 'node:crypto';
import { Cell, beginCell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import {
  FrameError,
  acceptHandshake,
  clientHandshake,
  createFrameReader,
  ed25519FromSeed,
  edwardsToMontgomery,
  frame,
  generateEd25519,
  keyId,
  sharedSecret,
} from '../../src/ton/adnl.js';
import { ID, LiteServerError, decodeRequest, encodeRequest, type LiteBlockId } from '../../src/ton/lite-api.js';
import { decodeAccountState, decodeMasterchainInfo, decodeOutMsgQueueSizes, encodeError, encodeOutMsgQueueSizes } from '../../src/ton/lite-answers.js';
import { buildShardAccounts, buildShardStateProof, lookupShardAccount } from '../../src/ton/shard-accounts.js';
import { buildShardHashes, parseShardHashes } from '../../src/ton/shard-hashes.js';
import { TlError, TlReader, TlWriter } from '../../src/ton/tl.js';
import { serializeRoots } from '../../src/ton/boc.js';

/** The TL codec, the lite API messages, ADNL's crypto and framing, and the block.tlb structures a liteserver answers with. */

const block = (workchain: number, shard: bigint, seqno: number): LiteBlockId => ({
  workchain,
  shard,
  seqno,
  rootHash: randomBytes(32),
  fileHash: randomBytes(32),
});

describe('lite API ids', () => {
  it('are the CRC32 of the schema lines, as the node and liteserver-facts.md give them', () => {
    expect(ID).toMatchObject({
      getOutMsgQueueSizes: 0x7bc19c36,
      outMsgQueueSizes: 0xf8504a03,
      outMsgQueueSize: 0xa7c64c85,
      getBlockOutMsgQueueSize: 0x8f6c7779,
      blockOutMsgQueueSize: 0x8acdbe1b,
      // Well-known ids of the ADNL and lite API wrappers (the adnl package writes c6 b4 13 48 for pub.ed25519).
      pubEd25519: 0x4813b4c6,
      adnlQuery: 0xb48bf97a,
      adnlAnswer: 0x0fac8416,
      query: 0x798c06df,
      error: 0xbba9e148,
      getMasterchainInfo: 0x89b5e62e,
      tcpPing: 0x4d082b9a,
    });
  });
});

describe('TL', () => {
  it('pads bytes to four, uses the long form past 253, and reads back what it wrote', () => {
    for (const length of [0, 1, 3, 4, 253, 254, 1000, 70_000]) {
      const value = randomBytes(length);
      const written = new TlWriter().bytes(value).int64(-5n).build();
      expect(written.length % 4).toBe(0);
      const r = new TlReader(written);
      expect(r.bytes().equals(value)).toBe(true);
      expect(r.int64()).toBe(-5n);
      expect(r.remaining).toBe(0);
    }
  });

  it('refuses truncated input and a 255 length byte', () => {
    expect(() => new TlReader(Buffer.from([10, 1, 2])).bytes()).toThrow(TlError);
    expect(() => new TlReader(Buffer.from([255, 0, 0, 0])).bytes()).toThrow(TlError);
  });

  it('encodes getOutMsgQueueSizes with mode 0 and nothing else', () => {
    expect(encodeRequest({ kind: 'getOutMsgQueueSizes' }).toString('hex')).toBe('369cc17b00000000');
  });

  it('round-trips every request the client sends', () => {
    const id = block(0, 0x8000000000000000n, 7);
    for (const request of [
      { kind: 'getMasterchainInfo' },
      { kind: 'getAllShardsInfo', id },
      { kind: 'getOutMsgQueueSizes' },
      { kind: 'getBlockOutMsgQueueSize', id },
      { kind: 'getAccountState', id, workchain: -1, account: randomBytes(32) },
    ] as const) {
      expect(decodeRequest(encodeRequest(request))).toEqual(request);
    }
  });

  it('reads out-message queue sizes with bare elements, and a liteServer.error as one with its code', () => {
    const shards = [
      { id: block(-1, 0x8000000000000000n, 100), size: 3 },
      { id: block(0, 0x4000000000000000n, 200), size: 9000 },
    ];
    const encoded = encodeOutMsgQueueSizes({ shards, extMsgQueueSizeLimit: 8000 });
    // id, count, two bare (id-less) elements of 4+8+4+32+32+4 bytes, the limit.
    expect(encoded.length).toBe(4 + 4 + 2 * 84 + 4);
    expect(decodeOutMsgQueueSizes(encoded)).toEqual({ shards, extMsgQueueSizeLimit: 8000 });
    const error = (() => {
      try {
        decodeMasterchainInfo(encodeError(-400, 'unknown query'));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(LiteServerError);
    expect(error).toMatchObject({ code: -400, message: 'unknown query' });
    expect(() => decodeAccountState(encodeOutMsgQueueSizes({ shards: [], extMsgQueueSizeLimit: 1 }))).toThrow(TlError);
  });
});

describe('ADNL', () => {
  it('agrees on the x25519 secret from both ends, and maps ed25519 keys as RFC 7748 does', () => {
    const a = generateEd25519();
    const b = generateEd25519();
    expect(sharedSecret(a, b.publicKey).equals(sharedSecret(b, a.publicKey))).toBe(true);
    // The ed25519 base point (y = 4/5) is the X25519 base point u = 9.
    const basePoint = Buffer.from('5866666666666666666666666666666666666666666666666666666666666666', 'hex');
    expect(edwardsToMontgomery(basePoint).toString('hex')).toBe(`09${'00'.repeat(31)}`);
    // RFC 8032 test 1: the seed's public key.
    const rfc = ed25519FromSeed(Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex'));
    expect(rfc.publicKey.toString('hex')).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
  });

  it('opens both streams from the handshake; another key or a tampered packet is refused', () => {
    const server = generateEd25519();
    const { packet, ciphers } = clientHandshake(server.publicKey);
    expect(packet).toHaveLength(256);
    expect(packet.subarray(0, 32).equals(keyId(server.publicKey))).toBe(true);
    const serverSide = acceptHandshake(packet, server);
    expect(serverSide).not.toBeNull();
    const hello = Buffer.from('ping over ADNL');
    expect(serverSide?.decrypt.update(ciphers.encrypt.update(hello)).equals(hello)).toBe(true);
    expect(ciphers.decrypt.update(serverSide?.encrypt.update(hello) ?? Buffer.alloc(0)).equals(hello)).toBe(true);
    expect(acceptHandshake(packet, generateEd25519())).toBeNull();
    const tampered = Buffer.from(packet);
    tampered[200] = (tampered[200] ?? 0) ^ 1;
    expect(acceptHandshake(tampered, server)).toBeNull();
  });

  it('reassembles frames split anywhere, and refuses a bad checksum or size', () => {
    const reader = createFrameReader();
    const bytes = Buffer.concat([frame(Buffer.from('one')), frame(Buffer.alloc(0)), frame(randomBytes(5000))]);
    const payloads: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 7) payloads.push(...reader.push(bytes.subarray(at, at + 7)));
    expect(payloads.map((p) => p.length)).toEqual([3, 0, 5000]);
    const bad = frame(Buffer.from('x'));
    bad[bad.length - 1] = (bad[bad.length - 1] ?? 0) ^ 1;
    expect(() => createFrameReader().push(bad)).toThrow(FrameError);
    expect(() => createFrameReader().push(Buffer.from([1, 0, 0, 0]))).toThrow(FrameError);
  });
});

describe('block.tlb structures', () => {
  it('reads back the shard blocks of a ShardHashes tree, split shards included, each with its gen_utime', () => {
    const blocks = [block(0, 0x2000000000000000n, 10), block(0, 0x6000000000000000n, 11), block(0, 0xc000000000000000n, 12)].map((b, i) => ({
      ...b,
      genUtime: 1_795_000_000 + i,
    }));
    expect(parseShardHashes(buildShardHashes(blocks))).toEqual(blocks);
  });

  it("finds each account's ShardAccount in a state proof of many accounts, and none for an absent one", () => {
    const entries = Array.from({ length: 33 }, (_, i) => ({
      accountHash: i === 1 ? Buffer.alloc(32, 0xff) : randomBytes(32),
      account: beginCell().storeUint(i, 16).endCell(),
      lastTransHash: randomBytes(32),
      lastTransLt: BigInt(1000 + i),
      balance: BigInt(i) * 10n,
    }));
    const proof = Cell.fromBoc(
      buildShardStateProof({ workchain: 0, shard: 0x8000000000000000n, seqno: 5, genLt: 1n, genUtime: 1, accounts: buildShardAccounts(entries) }).toBoc(),
    )[0] as Cell;
    expect(proof.isExotic).toBe(true);
    for (const e of entries) {
      const found = lookupShardAccount(proof, e.accountHash);
      expect(found?.lastTransLt).toBe(e.lastTransLt);
      expect(found?.lastTransHash.equals(e.lastTransHash)).toBe(true);
      expect(found?.account.equals(e.account)).toBe(true);
    }
    expect(lookupShardAccount(proof, randomBytes(32))).toBeNull();
    const empty = buildShardStateProof({ workchain: 0, shard: 0x8000000000000000n, seqno: 5, genLt: 1n, genUtime: 1, accounts: buildShardAccounts([]) });
    expect(lookupShardAccount(empty, randomBytes(32))).toBeNull();
  });
});

describe('serializeRoots', () => {
  it('writes a bag of several roots that @ton/core reads back, shared cells once, Merkle proofs included', () => {
    const shared = beginCell().storeUint(0xabc, 12).endCell();
    const a = beginCell().storeUint(1, 1).storeRef(shared).storeRef(beginCell().storeBit(true).storeRef(shared).endCell()).endCell();
    const proof = buildShardStateProof({ workchain: 0, shard: 0x8000000000000000n, seqno: 1, genLt: 1n, genUtime: 1, accounts: buildShardAccounts([]) });
    const bytes = serializeRoots([a, proof]);
    const roots = Cell.fromBoc(bytes);
    expect(roots.map((r) => r.hash().toString('hex'))).toEqual([a.hash().toString('hex'), proof.hash().toString('hex')]);
    expect(roots[1]?.isExotic).toBe(true);
    expect(Cell.fromBoc(serializeRoots([a])).length).toBe(1);
  });
});
