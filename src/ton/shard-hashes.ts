import { TonParseError } from './errors.js';
import { Cell, Dictionary, beginCell, type Slice } from '@ton/core';
import type { LiteBlockId } from './lite-api.js';
import { WHOLE_WORKCHAIN_SHARD, splitShard } from './shard.js';

/**
 * The current shard blocks, as liteServer.allShardsInfo's `data` carries them: a cell
 * holding `ShardHashes` (block.tlb):
 *
 *   _ (HashmapE 32 ^(BinTree ShardDescr)) = ShardHashes;
 *   bt_leaf$0 leaf:X = BinTree X;   bt_fork$1 left:^(BinTree X) right:^(BinTree X) = BinTree X;
 *   shard_descr#b / shard_descr_new#a seq_no:uint32 reg_mc_seqno:uint32 start_lt:uint64
 *       end_lt:uint64 root_hash:bits256 file_hash:bits256 before_split:Bool before_merge:Bool
 *       want_split:Bool want_merge:Bool nx_cc_updated:Bool flags:(## 3) next_catchain_seqno:uint32
 *       next_validator_shard:uint64 min_ref_mc_seqno:uint32 gen_utime:uint32 …
 *
 * A leaf's shard is its path in the tree: left appends a 0 bit, right a 1 bit.
 */

/** A shard's top block, with when it was made (gen_utime, unix seconds). */
export interface ShardBlock extends LiteBlockId {
  readonly genUtime: number;
}

function readTree(workchain: number, cell: Cell, shard: bigint, depth: number, out: ShardBlock[]): void {
  const s = cell.beginParse();
  if (s.loadBit()) {
    if (depth >= 60) throw new TonParseError('bad_data', 'shard tree deeper than 60');
    const [left, right] = splitShard(shard);
    readTree(workchain, s.loadRef(), left, depth + 1, out);
    readTree(workchain, s.loadRef(), right, depth + 1, out);
    return;
  }
  out.push(readDescr(workchain, shard, s));
}

function readDescr(workchain: number, shard: bigint, s: Slice): ShardBlock {
  const tag = s.loadUint(4);
  if (tag !== 0xa && tag !== 0xb) throw new TonParseError('bad_data', `not a ShardDescr (tag ${tag})`);
  const seqno = s.loadUint(32);
  s.skip(32 + 64 + 64);
  const rootHash = s.loadBuffer(32);
  const fileHash = s.loadBuffer(32);
  s.skip(5 + 3 + 32 + 64 + 32);
  return { workchain, shard, seqno, rootHash, fileHash, genUtime: s.loadUint(32) };
}

/** Every current shard block of every workchain, in workchain then shard order. */
export function parseShardHashes(data: Buffer): ShardBlock[] {
  const root = Cell.fromBoc(data)[0];
  if (root === undefined) throw new TonParseError('bad_data', 'empty shard hashes');
  const dict = root.beginParse().loadDict(Dictionary.Keys.Int(32), Dictionary.Values.Cell());
  const out: ShardBlock[] = [];
  for (const workchain of dict.keys().sort((a, b) => a - b)) {
    const tree = dict.get(workchain);
    if (tree) readTree(workchain, tree, WHOLE_WORKCHAIN_SHARD, 0, out);
  }
  return out;
}

/** A shard_descr_new for a block (the simulator's side); the fields tonwatch does not read are zero. */
function descrCell(block: LiteBlockId & { readonly genUtime?: number }): Cell {
  const emptyCurrencies = (b: ReturnType<typeof beginCell>) => b.storeCoins(0).storeBit(false);
  const tail = beginCell().storeBit(false);
  emptyCurrencies(tail);
  emptyCurrencies(tail);
  return beginCell()
    .storeBit(false)
    .storeUint(0xa, 4)
    .storeUint(block.seqno, 32)
    .storeUint(0, 32)
    .storeUint(0, 64)
    .storeUint(0, 64)
    .storeBuffer(block.rootHash, 32)
    .storeBuffer(block.fileHash, 32)
    .storeUint(0, 5)
    .storeUint(0, 3)
    .storeUint(0, 32)
    .storeUint(0, 64)
    .storeUint(0, 32)
    .storeUint(block.genUtime ?? 0, 32)
    .storeRef(tail.endCell())
    .endCell();
}

function buildTree(shard: bigint, blocks: readonly (LiteBlockId & { readonly genUtime?: number })[]): Cell {
  const leaf = blocks.find((b) => b.shard === shard);
  if (leaf) return descrCell(leaf);
  const [left, right] = splitShard(shard);
  return beginCell().storeBit(true).storeRef(buildTree(left, blocks)).storeRef(buildTree(right, blocks)).endCell();
}

/** ShardHashes for these shard blocks (each workchain's shards must tile it), as a BoC. */
export function buildShardHashes(blocks: readonly (LiteBlockId & { readonly genUtime?: number })[]): Buffer {
  const dict = Dictionary.empty(Dictionary.Keys.Int(32), Dictionary.Values.Cell());
  for (const workchain of new Set(blocks.map((b) => b.workchain))) {
    dict.set(
      workchain,
      buildTree(
        WHOLE_WORKCHAIN_SHARD,
        blocks.filter((b) => b.workchain === workchain),
      ),
    );
  }
  return beginCell().storeDict(dict).endCell().toBoc();
}
