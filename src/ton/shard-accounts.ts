import { TonParseError } from './errors.js';
import { beginCell, convertToMerkleProof, type Cell, type Slice } from '@ton/core';
import { hashmapLookup, writeLabel } from './hashmap.js';
import { shardDepth } from './shard.js';

/**
 * The `ShardAccount` of one account inside a shard state (block.tlb):
 *
 *   shard_state#9023afe2 … out_msg_queue_info:^OutMsgQueueInfo before_split:(## 1)
 *       accounts:^ShardAccounts …
 *   _ (HashmapAugE 256 ShardAccount DepthBalanceInfo) = ShardAccounts;
 *   account_descr$_ account:^Account last_trans_hash:bits256 last_trans_lt:uint64 = ShardAccount;
 *
 * A liteserver's getAccountState proof carries that path (the rest pruned); the last
 * transaction's lt and hash live only there. lookupShardAccount() walks it; the builders
 * are the simulator's side.
 */

const SHARD_STATE_TAG = 0x9023afe2;
const SPLIT_STATE_TAG = 0x5f327da5;
const KEY_BITS = 256;

export interface ShardAccountRecord {
  /** The `Account` cell (its first bit says whether the account exists). */
  readonly account: Cell;
  readonly lastTransHash: Buffer;
  readonly lastTransLt: bigint;
}

const keyBitsOf = (hash: Uint8Array): string => [...hash].map((byte) => byte.toString(2).padStart(8, '0')).join('');

/** Skips a DepthBalanceInfo (split_depth:(#<= 30) balance:CurrencyCollection). */
function skipDepthBalance(s: Slice): void {
  s.loadUint(5);
  s.loadCoins();
  s.loadMaybeRef();
}

/** The ShardAccount under `accountHash` in a ShardAccounts root slice; null when the account is not in the dictionary. */
function lookupAccounts(root: Slice, accountHash: Uint8Array): ShardAccountRecord | null {
  if (!root.loadBit()) return null;
  const s = hashmapLookup(root.loadRef(), KEY_BITS, keyBitsOf(accountHash), skipDepthBalance);
  return s === null ? null : { account: s.loadRef(), lastTransHash: s.loadBuffer(32), lastTransLt: s.loadUintBig(64) };
}

/**
 * The ShardAccount of `accountHash` in the state proof (a Merkle proof of the shard state);
 * null when the state has no such account. Throws when the proof is not shaped as one.
 */
export function lookupShardAccount(stateProof: Cell, accountHash: Uint8Array): ShardAccountRecord | null {
  let state = stateProof.isExotic ? stateProof.refs[0] : stateProof;
  if (state === undefined) throw new TonParseError('bad_data', 'the state proof has no state');
  const tag = state.beginParse(true).preloadUint(32);
  if (tag === SPLIT_STATE_TAG) {
    // A state split in two: the half that is not pruned is the account's.
    state = state.refs.find((half) => !half.isExotic);
    if (state === undefined) throw new TonParseError('bad_data', 'both halves of the split state are pruned');
  } else if (tag !== SHARD_STATE_TAG) {
    throw new TonParseError('bad_data', `not a shard state (tag 0x${tag.toString(16)})`);
  }
  const accounts = state.refs[1];
  if (accounts === undefined) throw new TonParseError('bad_data', 'the shard state has no accounts reference');
  return lookupAccounts(accounts.beginParse(), accountHash);
}

export interface ShardAccountEntry extends ShardAccountRecord {
  readonly accountHash: Buffer;
  /** Balance in nanotons, for the DepthBalanceInfo sums. */
  readonly balance: bigint;
}

/** HashmapAug 256 ShardAccount DepthBalanceInfo over these entries, labels in their shortest form; the extra is the balance sum. */
function buildAug(entries: readonly { readonly bits: string; readonly entry: ShardAccountEntry }[], prefixLength: number): { cell: Cell; balance: bigint } {
  const n = KEY_BITS - prefixLength;
  let common = entries[0]?.bits.slice(prefixLength) ?? '';
  for (const e of entries) {
    let i = 0;
    const rest = e.bits.slice(prefixLength);
    while (i < common.length && rest[i] === common[i]) i += 1;
    common = common.slice(0, i);
  }
  const b = beginCell();
  writeLabel(b, common, n);
  const at = prefixLength + common.length;
  if (at === KEY_BITS) {
    const only = entries[0]?.entry;
    if (only === undefined) throw new TonParseError('bad_data', 'empty dictionary');
    b.storeUint(0, 5).storeCoins(only.balance).storeBit(false);
    b.storeRef(only.account).storeBuffer(only.lastTransHash, 32).storeUint(only.lastTransLt, 64);
    return { cell: b.endCell(), balance: only.balance };
  }
  const left = buildAug(
    entries.filter((e) => e.bits[at] === '0'),
    at + 1,
  );
  const right = buildAug(
    entries.filter((e) => e.bits[at] === '1'),
    at + 1,
  );
  const balance = left.balance + right.balance;
  b.storeRef(left.cell).storeRef(right.cell).storeUint(0, 5).storeCoins(balance).storeBit(false);
  return { cell: b.endCell(), balance };
}

/** A ShardAccounts value (HashmapAugE) holding these accounts. */
export function buildShardAccounts(entries: readonly ShardAccountEntry[]): Cell {
  if (entries.length === 0) return beginCell().storeBit(false).storeUint(0, 5).storeCoins(0).storeBit(false).endCell();
  const root = buildAug(
    entries.map((entry) => ({ bits: keyBitsOf(entry.accountHash), entry })),
    0,
  );
  return beginCell().storeBit(true).storeRef(root.cell).storeUint(0, 5).storeCoins(root.balance).storeBit(false).endCell();
}

/** A Merkle proof of a shard state whose accounts are these (nothing pruned: the simulator has nothing to hide). */
export function buildShardStateProof(options: { workchain: number; shard: bigint; seqno: number; genLt: bigint; genUtime: number; accounts: Cell }): Cell {
  const state = beginCell()
    .storeUint(SHARD_STATE_TAG, 32)
    .storeInt(-239, 32)
    .storeUint(0, 2)
    .storeUint(shardDepth(options.shard), 6)
    .storeInt(options.workchain, 32)
    .storeUint(options.shard, 64)
    .storeUint(options.seqno, 32)
    .storeUint(0, 32)
    .storeUint(options.genUtime, 32)
    .storeUint(options.genLt, 64)
    .storeUint(0, 32)
    .storeRef(beginCell().endCell())
    .storeBit(false)
    .storeRef(options.accounts)
    .storeRef(beginCell().endCell())
    .storeBit(false)
    .endCell();
  return convertToMerkleProof(state);
}
