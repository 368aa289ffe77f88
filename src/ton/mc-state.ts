import { beginCell, convertToMerkleProof, Dictionary, type Cell, type Slice } from '@ton/core';
import { TonParseError } from './errors.js';
import { hashmapLeaves, hashmapLookup, keyBits } from './hashmap.js';
import { buildShardAccounts } from './shard-accounts.js';

/**
 * What tonwatch reads of a masterchain state (block.tlb), through the Merkle proofs a
 * liteserver answers getConfigParams and getValidatorStats with, and the simulator's side
 * that builds such a state:
 *
 *   shard_state#9023afe2 … out_msg_queue_info:^… before_split:(## 1) accounts:^… ^[…]
 *     custom:(Maybe ^McStateExtra) = ShardStateUnsplit;
 *   masterchain_state_extra#cc26 shard_hashes:ShardHashes config:ConfigParams ^[ flags:(## 16)
 *     validator_info:ValidatorInfo prev_blocks:OldMcBlocksInfo after_key_block:Bool
 *     last_key_block:(Maybe ExtBlkRef) block_create_stats:(flags . 0)?BlockCreateStats ]
 *     global_balance:CurrencyCollection = McStateExtra;
 *   _ config_addr:bits256 config:^(Hashmap 32 ^Cell) = ConfigParams;
 *   block_create_stats#17 counters:(HashmapE 256 CreatorStats) = BlockCreateStats;
 *   block_create_stats_ext#34 counters:(HashmapAugE 256 CreatorStats uint32) = BlockCreateStats;
 *   creator_info#4 mc_blocks:Counters shard_blocks:Counters = CreatorStats;
 *   counters#_ last_updated:uint32 total:uint64 cnt2048:uint64 cnt65536:uint64 = Counters;
 *
 * Only the proven path is read: the rest of a proof is pruned.
 */

const SHARD_STATE_TAG = 0x9023afe2;
const MC_STATE_EXTRA_TAG = 0xcc26;
const MC_SHARD = 0x8000000000000000n;

/** Blocks a validator created: masterchain and shardchain totals since the counters began. */
export interface CreatorCounts {
  readonly masterchain: bigint;
  readonly shardchain: bigint;
}

/** The McStateExtra of a masterchain state proof, parsed up to its config (the slice stands at the `^[…]` reference and global_balance). */
function mcStateExtra(proof: Cell): { config: Cell; rest: Slice } {
  const state = proof.isExotic ? proof.refs[0] : proof;
  if (state === undefined) throw new TonParseError('bad_data', 'the state proof has no state');
  const tag = state.beginParse(true).preloadUint(32);
  if (tag !== SHARD_STATE_TAG) throw new TonParseError('bad_data', `not a shard state (tag 0x${tag.toString(16)})`);
  const extra = state.refs[3];
  if (extra === undefined) throw new TonParseError('bad_data', 'the state has no masterchain extra: not a masterchain state');
  const s = extra.beginParse();
  if (s.loadUint(16) !== MC_STATE_EXTRA_TAG) throw new TonParseError('bad_data', 'not a McStateExtra');
  if (s.loadBit()) s.loadRef();
  s.skip(256);
  return { config: s.loadRef(), rest: s };
}

/** The value cells of these config parameters in a state proof; null for one the config does not hold. */
export function readConfigFromProof(proof: Cell, params: readonly number[]): Map<number, Cell | null> {
  const { config } = mcStateExtra(proof);
  return new Map(params.map((param) => [param, hashmapLookup(config, 32, keyBits(BigInt(param), 32))?.loadRef() ?? null]));
}

const readCounters = (s: Slice): bigint => {
  s.skip(32);
  const total = s.loadUintBig(64);
  s.skip(128);
  return total;
};

/** Every block creator a state proof holds (public key hex → counts); the all-zero key holds the totals. */
export function readCreatorStats(proof: Cell): Map<string, CreatorCounts> {
  const s = mcStateExtra(proof).rest.loadRef().beginParse();
  const flags = s.loadUint(16);
  s.skip(32 + 32 + 1);
  if (s.loadBit()) s.loadRef();
  s.skip(1 + 64);
  s.skip(1);
  if (s.loadBit()) s.skip(64 + 32 + 256 + 256);
  const stats = new Map<string, CreatorCounts>();
  if ((flags & 1) === 0) return stats;
  const tag = s.loadUint(8);
  if (tag !== 0x17 && tag !== 0x34) throw new TonParseError('bad_data', `not a BlockCreateStats (tag 0x${tag.toString(16)})`);
  if (!s.loadBit()) return stats;
  const skipExtra = tag === 0x34 ? (leaf: Slice) => leaf.skip(32) : undefined;
  for (const [key, leaf] of hashmapLeaves(s.loadRef(), 256, skipExtra)) {
    if (leaf.loadUint(4) !== 0x4) throw new TonParseError('bad_data', 'not a CreatorStats');
    const masterchain = readCounters(leaf);
    stats.set(BigInt(`0b${key}`).toString(16).padStart(64, '0'), { masterchain, shardchain: readCounters(leaf) });
  }
  return stats;
}

const countersOf = (total: bigint, at: number) => beginCell().storeUint(at, 32).storeUint(total, 64).storeUint(0, 64).storeUint(0, 64);

/**
 * The simulator's side: a Merkle proof of a masterchain state whose config holds `params`
 * and whose block_create_stats hold `creators` (nothing pruned: the simulator has nothing
 * to hide), at masterchain block `seqno`, made at `genUtime`.
 */
export function buildMcStateProof(options: {
  readonly seqno: number;
  readonly genUtime: number;
  readonly configAddress: Buffer;
  readonly params: ReadonlyMap<number, Cell>;
  readonly creators: ReadonlyMap<string, CreatorCounts>;
}): Cell {
  if (options.params.size === 0) throw new RangeError('a masterchain state has config parameters: give at least one');
  const config = Dictionary.empty(Dictionary.Keys.Int(32), Dictionary.Values.Cell());
  for (const [param, value] of options.params) config.set(param, value);
  const creators = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  const creatorStats = (counts: CreatorCounts): Cell =>
    beginCell()
      .storeUint(0x4, 4)
      .storeBuilder(countersOf(counts.masterchain, options.genUtime))
      .storeBuilder(countersOf(counts.shardchain, options.genUtime))
      .endCell();
  for (const [key, counts] of options.creators) creators.set(BigInt(`0x${key}`), creatorStats(counts));
  const rest = beginCell()
    .storeUint(1, 16)
    .storeUint(0, 32 + 32 + 1)
    .storeBit(false)
    .storeUint(0, 1 + 64)
    .storeBit(false)
    .storeBit(false)
    .storeUint(0x17, 8)
    .storeDict(creators, Dictionary.Keys.BigUint(256), inlineCellValue)
    .endCell();
  const extra = beginCell()
    .storeUint(MC_STATE_EXTRA_TAG, 16)
    .storeBit(false)
    .storeBuffer(options.configAddress, 32)
    .storeRef(beginCell().storeDictDirect(config).endCell())
    .storeRef(rest)
    .storeCoins(0)
    .storeBit(false)
    .endCell();
  const state = beginCell()
    .storeUint(SHARD_STATE_TAG, 32)
    .storeInt(-239, 32)
    .storeUint(0, 2)
    .storeUint(0, 6)
    .storeInt(-1, 32)
    .storeUint(MC_SHARD, 64)
    .storeUint(options.seqno, 32)
    .storeUint(0, 32)
    .storeUint(options.genUtime, 32)
    .storeUint(0, 64)
    .storeUint(0, 32)
    .storeRef(beginCell().endCell())
    .storeBit(false)
    .storeRef(buildShardAccounts([]))
    .storeRef(beginCell().endCell())
    .storeBit(true)
    .storeRef(extra)
    .endCell();
  return convertToMerkleProof(state);
}

/** A dictionary value stored inline in its leaf (CreatorStats are not references). */
const inlineCellValue = {
  serialize: (cell: Cell, b: ReturnType<typeof beginCell>) => void b.storeSlice(cell.beginParse()),
  parse: (s: Slice): Cell => beginCell().storeSlice(s).endCell(),
};
