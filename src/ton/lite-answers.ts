import { TlError, TlWriter } from './tl.js';
import { answerReader, ID, readBlockId, writeBlockId, type LiteBlockId } from './lite-api.js';

/** The lite API's answers tonwatch reads (the upstream's side) and writes (the simulator's liteserver). */

export interface MasterchainInfo {
  readonly last: LiteBlockId;
  readonly stateRootHash: Buffer;
  readonly init: { readonly workchain: number; readonly rootHash: Buffer; readonly fileHash: Buffer };
}

export interface OutMsgQueueSizes {
  readonly shards: readonly { readonly id: LiteBlockId; readonly size: number }[];
  readonly extMsgQueueSizeLimit: number;
}

export interface AccountStateAnswer {
  readonly id: LiteBlockId;
  readonly shardblk: LiteBlockId;
  readonly shardProof: Buffer;
  readonly proof: Buffer;
  readonly state: Buffer;
}

export function decodeMasterchainInfo(data: Buffer): MasterchainInfo {
  const r = answerReader(data, ID.masterchainInfo, 'liteServer.masterchainInfo');
  return { last: readBlockId(r), stateRootHash: r.int256(), init: { workchain: r.int32(), rootHash: r.int256(), fileHash: r.int256() } };
}

export function encodeMasterchainInfo(info: MasterchainInfo): Buffer {
  const w = writeBlockId(new TlWriter().id(ID.masterchainInfo), info.last).int256(info.stateRootHash);
  return w.int32(info.init.workchain).int256(info.init.rootHash).int256(info.init.fileHash).build();
}

export function decodeAllShardsInfo(data: Buffer): { readonly id: LiteBlockId; readonly data: Buffer } {
  const r = answerReader(data, ID.allShardsInfo, 'liteServer.allShardsInfo');
  const id = readBlockId(r);
  r.bytes();
  return { id, data: r.bytes() };
}

export function encodeAllShardsInfo(id: LiteBlockId, shardHashes: Buffer): Buffer {
  return writeBlockId(new TlWriter().id(ID.allShardsInfo), id).bytes(Buffer.alloc(0)).bytes(shardHashes).build();
}

export function decodeOutMsgQueueSizes(data: Buffer): OutMsgQueueSizes {
  const r = answerReader(data, ID.outMsgQueueSizes, 'liteServer.outMsgQueueSizes');
  const count = r.uint32();
  if (count > 4096) throw new TlError(`${count} shards is not a plausible count`);
  const shards = [];
  for (let i = 0; i < count; i += 1) shards.push({ id: readBlockId(r), size: r.int32() });
  return { shards, extMsgQueueSizeLimit: r.int32() };
}

export function encodeOutMsgQueueSizes(value: OutMsgQueueSizes): Buffer {
  const w = new TlWriter().id(ID.outMsgQueueSizes).uint32(value.shards.length);
  for (const shard of value.shards) writeBlockId(w, shard.id).int32(shard.size);
  return w.int32(value.extMsgQueueSizeLimit).build();
}

export function decodeBlockOutMsgQueueSize(data: Buffer): { readonly id: LiteBlockId; readonly size: bigint } {
  const r = answerReader(data, ID.blockOutMsgQueueSize, 'liteServer.blockOutMsgQueueSize');
  r.uint32();
  return { id: readBlockId(r), size: r.int64() };
}

export function encodeBlockOutMsgQueueSize(id: LiteBlockId, size: number): Buffer {
  return writeBlockId(new TlWriter().id(ID.blockOutMsgQueueSize).uint32(0), id).int64(BigInt(size)).build();
}

export function decodeAccountState(data: Buffer): AccountStateAnswer {
  const r = answerReader(data, ID.accountState, 'liteServer.accountState');
  return { id: readBlockId(r), shardblk: readBlockId(r), shardProof: r.bytes(), proof: r.bytes(), state: r.bytes() };
}

export function encodeAccountState(value: AccountStateAnswer): Buffer {
  const w = writeBlockId(writeBlockId(new TlWriter().id(ID.accountState), value.id), value.shardblk);
  return w.bytes(value.shardProof).bytes(value.proof).bytes(value.state).build();
}

export function encodeError(code: number, message: string): Buffer {
  return new TlWriter().id(ID.error).int32(code).string(message).build();
}

/** liteServer.masterchainInfoExt: the last masterchain block and its gen_utime (`lastUtime`), and the server's clock. */
export interface MasterchainInfoExt {
  readonly last: LiteBlockId;
  readonly lastUtime: number;
  readonly now: number;
}

export function decodeMasterchainInfoExt(data: Buffer): MasterchainInfoExt {
  const r = answerReader(data, ID.masterchainInfoExt, 'liteServer.masterchainInfoExt');
  r.uint32();
  r.int32();
  r.int64();
  const last = readBlockId(r);
  return { last, lastUtime: r.uint32(), now: r.uint32() };
}

export function encodeMasterchainInfoExt(info: MasterchainInfoExt, stateRootHash: Buffer, zeroState: Buffer): Buffer {
  const w = writeBlockId(new TlWriter().id(ID.masterchainInfoExt).uint32(0).int32(0).int64(0n), info.last);
  return w.uint32(info.lastUtime).uint32(info.now).int256(stateRootHash).int32(-1).int256(zeroState).int256(zeroState).build();
}

/** liteServer.configInfo: the block, and the Merkle proof of its state that holds the parameters asked for. */
export function decodeConfigInfo(data: Buffer): { readonly id: LiteBlockId; readonly configProof: Buffer } {
  const r = answerReader(data, ID.configInfo, 'liteServer.configInfo');
  r.uint32();
  const id = readBlockId(r);
  r.bytes();
  return { id, configProof: r.bytes() };
}

export function encodeConfigInfo(id: LiteBlockId, configProof: Buffer): Buffer {
  return writeBlockId(new TlWriter().id(ID.configInfo).uint32(0), id).bytes(Buffer.alloc(0)).bytes(configProof).build();
}

/** TL's Bool, boxed. */
const BOOL_TRUE = 0x997275b5;
const BOOL_FALSE = 0xbc799737;

/** liteServer.validatorStats: how many creators it holds, whether they are all, and the Merkle proof of the state holding them. */
export interface ValidatorStatsInfo {
  readonly count: number;
  readonly complete: boolean;
  readonly dataProof: Buffer;
}

export function decodeValidatorStats(data: Buffer): ValidatorStatsInfo {
  const r = answerReader(data, ID.validatorStats, 'liteServer.validatorStats');
  r.uint32();
  readBlockId(r);
  const count = r.int32();
  const flag = r.uint32();
  if (flag !== BOOL_TRUE && flag !== BOOL_FALSE) throw new TlError(`not a Bool: 0x${flag.toString(16)}`);
  r.bytes();
  return { count, complete: flag === BOOL_TRUE, dataProof: r.bytes() };
}

export function encodeValidatorStats(id: LiteBlockId, stats: ValidatorStatsInfo): Buffer {
  const w = writeBlockId(new TlWriter().id(ID.validatorStats).uint32(0), id).int32(stats.count);
  return w
    .uint32(stats.complete ? BOOL_TRUE : BOOL_FALSE)
    .bytes(Buffer.alloc(0))
    .bytes(stats.dataProof)
    .build();
}
