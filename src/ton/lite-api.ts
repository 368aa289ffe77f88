import { TlError, TlReader, TlWriter, hex, tlId } from './tl.js';

/**
 * The part of the TON lite API (the node's `tl/generate/scheme/lite_api.tl`) that tonwatch
 * speaks, both ways: the client encodes functions and decodes answers, the simulator's
 * liteserver the reverse. Lowercase types inside a constructor are bare (no id), as TL says.
 */

export const SCHEMA = {
  blockIdExt: 'tonNode.blockIdExt workchain:int shard:long seqno:int root_hash:int256 file_hash:int256 = tonNode.BlockIdExt',
  adnlQuery: 'adnl.message.query query_id:int256 query:bytes = adnl.Message',
  adnlAnswer: 'adnl.message.answer query_id:int256 answer:bytes = adnl.Message',
  tcpPing: 'tcp.ping random_id:long = tcp.Pong',
  tcpPong: 'tcp.pong random_id:long = tcp.Pong',
  pubEd25519: 'pub.ed25519 key:int256 = PublicKey',
  query: 'liteServer.query data:bytes = Object',
  error: 'liteServer.error code:int message:string = liteServer.Error',
  getMasterchainInfo: 'liteServer.getMasterchainInfo = liteServer.MasterchainInfo',
  masterchainInfo: 'liteServer.masterchainInfo last:tonNode.blockIdExt state_root_hash:int256 init:tonNode.zeroStateIdExt = liteServer.MasterchainInfo',
  getAllShardsInfo: 'liteServer.getAllShardsInfo id:tonNode.blockIdExt = liteServer.AllShardsInfo',
  allShardsInfo: 'liteServer.allShardsInfo id:tonNode.blockIdExt proof:bytes data:bytes = liteServer.AllShardsInfo',
  getOutMsgQueueSizes: 'liteServer.getOutMsgQueueSizes mode:# wc:mode.0?int shard:mode.0?long = liteServer.OutMsgQueueSizes',
  outMsgQueueSizes: 'liteServer.outMsgQueueSizes shards:(vector liteServer.outMsgQueueSize) ext_msg_queue_size_limit:int = liteServer.OutMsgQueueSizes',
  outMsgQueueSize: 'liteServer.outMsgQueueSize id:tonNode.blockIdExt size:int = liteServer.OutMsgQueueSize',
  getBlockOutMsgQueueSize: 'liteServer.getBlockOutMsgQueueSize mode:# id:tonNode.blockIdExt want_proof:mode.0?true = liteServer.BlockOutMsgQueueSize',
  blockOutMsgQueueSize: 'liteServer.blockOutMsgQueueSize mode:# id:tonNode.blockIdExt size:long proof:mode.0?bytes = liteServer.BlockOutMsgQueueSize',
  getAccountState: 'liteServer.getAccountState id:tonNode.blockIdExt account:liteServer.accountId = liteServer.AccountState',
  accountState: 'liteServer.accountState id:tonNode.blockIdExt shardblk:tonNode.blockIdExt shard_proof:bytes proof:bytes state:bytes = liteServer.AccountState',
  runSmcMethod: 'liteServer.runSmcMethod mode:# id:tonNode.blockIdExt account:liteServer.accountId method_id:long params:bytes = liteServer.RunMethodResult',
  runMethodResult:
    'liteServer.runMethodResult mode:# id:tonNode.blockIdExt shardblk:tonNode.blockIdExt shard_proof:mode.0?bytes proof:mode.0?bytes ' +
    'state_proof:mode.1?bytes init_c7:mode.3?bytes lib_extras:mode.4?bytes exit_code:int result:mode.2?bytes = liteServer.RunMethodResult',
  getMasterchainInfoExt: 'liteServer.getMasterchainInfoExt mode:# = liteServer.MasterchainInfoExt',
  masterchainInfoExt:
    'liteServer.masterchainInfoExt mode:# version:int capabilities:long last:tonNode.blockIdExt last_utime:int now:int state_root_hash:int256 ' +
    'init:tonNode.zeroStateIdExt = liteServer.MasterchainInfoExt',
  getConfigParams: 'liteServer.getConfigParams mode:# id:tonNode.blockIdExt param_list:(vector int) = liteServer.ConfigInfo',
  configInfo: 'liteServer.configInfo mode:# id:tonNode.blockIdExt state_proof:bytes config_proof:bytes = liteServer.ConfigInfo',
  getValidatorStats:
    'liteServer.getValidatorStats mode:# id:tonNode.blockIdExt limit:int start_after:mode.0?int256 modified_after:mode.2?int = liteServer.ValidatorStats',
  validatorStats:
    'liteServer.validatorStats mode:# id:tonNode.blockIdExt count:int complete:Bool state_proof:bytes data_proof:bytes = liteServer.ValidatorStats',
} as const;

/** Ids lite_api.tl gives explicitly (`name#id`), which are not the CRC32 of the line. */
const EXPLICIT_IDS: Partial<Record<keyof typeof SCHEMA, number>> = { getValidatorStats: 0x091a58bc };

export const ID: { readonly [K in keyof typeof SCHEMA]: number } = Object.fromEntries(
  Object.entries(SCHEMA).map(([name, line]) => [name, EXPLICIT_IDS[name as keyof typeof SCHEMA] ?? tlId(line)]),
) as {
  [K in keyof typeof SCHEMA]: number;
};

/** A block id: shard as the unsigned 64-bit value, hashes as 32 bytes. */
export interface LiteBlockId {
  readonly workchain: number;
  readonly shard: bigint;
  readonly seqno: number;
  readonly rootHash: Buffer;
  readonly fileHash: Buffer;
}

/** The functions tonwatch calls, as one tagged value. */
export type LiteRequest =
  | { readonly kind: 'getMasterchainInfo' }
  | { readonly kind: 'getAllShardsInfo'; readonly id: LiteBlockId }
  | { readonly kind: 'getOutMsgQueueSizes' }
  | { readonly kind: 'getBlockOutMsgQueueSize'; readonly id: LiteBlockId }
  | { readonly kind: 'getAccountState'; readonly id: LiteBlockId; readonly workchain: number; readonly account: Buffer }
  | { readonly kind: 'getMasterchainInfoExt' }
  /** Config parameters at a masterchain block (mode 0: their values in config_proof). */
  | { readonly kind: 'getConfigParams'; readonly id: LiteBlockId; readonly params: readonly number[] }
  /** Block creators' counters at a masterchain block, `limit` of them after `startAfter` (a public key). */
  | { readonly kind: 'getValidatorStats'; readonly id: LiteBlockId; readonly limit: number; readonly startAfter: Buffer | null }
  /** A get-method run on the liteserver (mode 4: the result stack alone, no proofs); `params` and the result are BoCs of a VmStack. */
  | {
      readonly kind: 'runSmcMethod';
      readonly id: LiteBlockId;
      readonly workchain: number;
      readonly account: Buffer;
      readonly methodId: bigint;
      readonly params: Buffer;
    };

export function writeBlockId(w: TlWriter, id: LiteBlockId): TlWriter {
  return w.int32(id.workchain).int64(id.shard).int32(id.seqno).int256(id.rootHash).int256(id.fileHash);
}

export function readBlockId(r: TlReader): LiteBlockId {
  return { workchain: r.int32(), shard: BigInt.asUintN(64, r.int64()), seqno: r.int32(), rootHash: r.int256(), fileHash: r.int256() };
}

/** A function call, boxed (its id first), as liteServer.query carries it. */
export function encodeRequest(request: LiteRequest): Buffer {
  const w = new TlWriter();
  switch (request.kind) {
    case 'getMasterchainInfo':
      return w.id(ID.getMasterchainInfo).build();
    case 'getAllShardsInfo':
      return writeBlockId(w.id(ID.getAllShardsInfo), request.id).build();
    case 'getOutMsgQueueSizes':
      // mode 0: every shard, the masterchain included; wc and shard are absent.
      return w.id(ID.getOutMsgQueueSizes).uint32(0).build();
    case 'getBlockOutMsgQueueSize':
      return writeBlockId(w.id(ID.getBlockOutMsgQueueSize).uint32(0), request.id).build();
    case 'getAccountState':
      return writeBlockId(w.id(ID.getAccountState), request.id).int32(request.workchain).int256(request.account).build();
    case 'getMasterchainInfoExt':
      return w.id(ID.getMasterchainInfoExt).uint32(0).build();
    case 'getConfigParams': {
      writeBlockId(w.id(ID.getConfigParams).uint32(0), request.id).uint32(request.params.length);
      for (const param of request.params) w.int32(param);
      return w.build();
    }
    case 'getValidatorStats': {
      const mode = request.startAfter === null ? 0 : 1;
      writeBlockId(w.id(ID.getValidatorStats).uint32(mode), request.id).int32(request.limit);
      if (request.startAfter !== null) w.int256(request.startAfter);
      return w.build();
    }
    case 'runSmcMethod':
      return writeBlockId(w.id(ID.runSmcMethod).uint32(4), request.id)
        .int32(request.workchain)
        .int256(request.account)
        .int64(request.methodId)
        .bytes(request.params)
        .build();
  }
}

/** The simulator's side: which function a query holds. Throws TlError on one it does not know. */
export function decodeRequest(data: Buffer): LiteRequest {
  const r = new TlReader(data);
  const id = r.uint32();
  switch (id) {
    case ID.getMasterchainInfo:
      return { kind: 'getMasterchainInfo' };
    case ID.getAllShardsInfo:
      return { kind: 'getAllShardsInfo', id: readBlockId(r) };
    case ID.getOutMsgQueueSizes: {
      const mode = r.uint32();
      if ((mode & 1) !== 0) {
        r.int32();
        r.int64();
      }
      return { kind: 'getOutMsgQueueSizes' };
    }
    case ID.getBlockOutMsgQueueSize: {
      r.uint32();
      return { kind: 'getBlockOutMsgQueueSize', id: readBlockId(r) };
    }
    case ID.getAccountState:
      return { kind: 'getAccountState', id: readBlockId(r), workchain: r.int32(), account: r.int256() };
    case ID.getMasterchainInfoExt:
      r.uint32();
      return { kind: 'getMasterchainInfoExt' };
    case ID.getConfigParams: {
      r.uint32();
      const id = readBlockId(r);
      const count = r.uint32();
      if (count > 256) throw new TlError(`${count} config params is not a plausible count`);
      return { kind: 'getConfigParams', id, params: Array.from({ length: count }, () => r.int32()) };
    }
    case ID.getValidatorStats: {
      const mode = r.uint32();
      const id = readBlockId(r);
      const limit = r.int32();
      const startAfter = (mode & 1) !== 0 ? r.int256() : null;
      if ((mode & 4) !== 0) r.int32();
      return { kind: 'getValidatorStats', id, limit, startAfter };
    }
    case ID.runSmcMethod: {
      r.uint32();
      return { kind: 'runSmcMethod', id: readBlockId(r), workchain: r.int32(), account: r.int256(), methodId: r.int64(), params: r.bytes() };
    }
    default:
      throw new TlError(`unknown function 0x${hex(id)}`);
  }
}

/** A liteServer.error answer: the server's code and message. */
export class LiteServerError extends Error {
  override readonly name = 'LiteServerError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Reads an answer: the expected constructor, or a liteServer.error thrown as LiteServerError. */
export function answerReader(data: Buffer, expected: number, what: string): TlReader {
  const r = new TlReader(data);
  const id = r.uint32();
  if (id === ID.error) throw new LiteServerError(r.int32(), r.string());
  if (id !== expected) throw new TlError(`expected ${what} (0x${hex(expected)}), got 0x${hex(id)}`);
  return r;
}
