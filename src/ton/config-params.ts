import type { Cell } from '@ton/core';
import { beginCell, Dictionary, type Builder, type DictionaryValue, type Slice } from '@ton/core';
import { TonParseError } from './errors.js';

/**
 * The blockchain config parameters tonwatch reads (block.tlb), from their value cells (what
 * toncenter's getConfigParam answers, and what a liteserver's config proof holds under each
 * number), and built the same way for the simulator and the tests:
 *
 *   _ elector_addr:bits256 = ConfigParam 1;
 *   _ validators_elected_for:uint32 elections_start_before:uint32 elections_end_before:uint32
 *     stake_held_for:uint32 = ConfigParam 15;
 *   _ min_stake:Grams max_stake:Grams min_total_stake:Grams max_stake_factor:uint32 = ConfigParam 17;
 *   validators#11 utime_since:uint32 utime_until:uint32 total:(## 16) main:(## 16)
 *     list:(Hashmap 16 ValidatorDescr) = ValidatorSet;
 *   validators_ext#12 … total_weight:uint64 list:(HashmapE 16 ValidatorDescr) = ValidatorSet;
 *   validator#53 public_key:SigPubKey weight:uint64 = ValidatorDescr;
 *   validator_addr#73 public_key:SigPubKey weight:uint64 adnl_addr:bits256 = ValidatorDescr;
 *   ed25519_pubkey#8e81278a pubkey:bits256 = SigPubKey;
 *
 * Amounts stay bigints (nanotons); keys are 64 lowercase hex digits.
 */

export const CONFIG_ELECTOR = 1;
export const CONFIG_ELECTION_TIMING = 15;
export const CONFIG_STAKE_LIMITS = 17;
export const CONFIG_PREVIOUS_VALIDATORS = 32;
export const CONFIG_CURRENT_VALIDATORS = 34;
export const CONFIG_NEXT_VALIDATORS = 36;

export interface ValidatorDescr {
  /** Its ed25519 public key, hex. */
  readonly publicKey: string;
  readonly weight: bigint;
  /** Its ADNL address, hex; null in a plain `validator#53`. */
  readonly adnl: string | null;
}

export interface ValidatorSet {
  /** Unix seconds. */
  readonly since: number;
  readonly until: number;
  readonly total: number;
  readonly main: number;
  /** Given by `#12`; the sum of the weights for `#11`. */
  readonly totalWeight: bigint;
  /** In index order: the first `main` validate the masterchain. */
  readonly validators: readonly ValidatorDescr[];
}

export interface ElectionTiming {
  readonly validatorsElectedFor: number;
  readonly electionsStartBefore: number;
  readonly electionsEndBefore: number;
  readonly stakeHeldFor: number;
}

export interface StakeLimits {
  readonly minStake: bigint;
  readonly maxStake: bigint;
  readonly minTotalStake: bigint;
  /** Fixed point: 65536 is 1×. */
  readonly maxStakeFactor: number;
}

const SIG_PUBKEY_TAG = 0x8e81278a;
const hex = (buffer: Buffer): string => buffer.toString('hex');

const VALIDATOR_DESCR: DictionaryValue<ValidatorDescr> = {
  serialize(descr: ValidatorDescr, b: Builder) {
    b.storeUint(descr.adnl === null ? 0x53 : 0x73, 8)
      .storeUint(SIG_PUBKEY_TAG, 32)
      .storeBuffer(Buffer.from(descr.publicKey, 'hex'), 32)
      .storeUint(descr.weight, 64);
    if (descr.adnl !== null) b.storeBuffer(Buffer.from(descr.adnl, 'hex'), 32);
  },
  parse(s: Slice): ValidatorDescr {
    const tag = s.loadUint(8);
    if (tag !== 0x53 && tag !== 0x73) throw new TonParseError('bad_data', `not a ValidatorDescr (tag 0x${tag.toString(16)})`);
    if (s.loadUint(32) !== SIG_PUBKEY_TAG) throw new TonParseError('bad_data', 'not an ed25519 public key');
    const publicKey = hex(s.loadBuffer(32));
    const weight = s.loadUintBig(64);
    return { publicKey, weight, adnl: tag === 0x73 ? hex(s.loadBuffer(32)) : null };
  },
};

export function readValidatorSet(cell: Cell): ValidatorSet {
  const s = cell.beginParse();
  const tag = s.loadUint(8);
  if (tag !== 0x11 && tag !== 0x12) throw new TonParseError('bad_data', `not a ValidatorSet (tag 0x${tag.toString(16)})`);
  const since = s.loadUint(32);
  const until = s.loadUint(32);
  const total = s.loadUint(16);
  const main = s.loadUint(16);
  const given = tag === 0x12 ? s.loadUintBig(64) : null;
  const list = tag === 0x12 ? s.loadDict(Dictionary.Keys.Uint(16), VALIDATOR_DESCR) : Dictionary.loadDirect(Dictionary.Keys.Uint(16), VALIDATOR_DESCR, s);
  const validators = [...list.keys()].sort((a, b) => a - b).map((index) => list.get(index) as ValidatorDescr);
  const totalWeight = given ?? validators.reduce((sum, v) => sum + v.weight, 0n);
  return { since, until, total, main, totalWeight, validators };
}

/** A `validators_ext#12` (as the chain writes them now). */
export function validatorSetCell(set: Omit<ValidatorSet, 'totalWeight'> & { totalWeight?: bigint }): Cell {
  const list = Dictionary.empty(Dictionary.Keys.Uint(16), VALIDATOR_DESCR);
  set.validators.forEach((v, i) => list.set(i, v));
  return beginCell()
    .storeUint(0x12, 8)
    .storeUint(set.since, 32)
    .storeUint(set.until, 32)
    .storeUint(set.total, 16)
    .storeUint(set.main, 16)
    .storeUint(set.totalWeight ?? set.validators.reduce((sum, v) => sum + v.weight, 0n), 64)
    .storeDict(list)
    .endCell();
}

/** Config 1: the elector's account in the masterchain, as a raw address. */
export function readElectorAddress(cell: Cell): string {
  return `-1:${cell.beginParse().loadBuffer(32).toString('hex').toUpperCase()}`;
}

export function electorAddressCell(raw: string): Cell {
  return beginCell()
    .storeBuffer(Buffer.from(raw.slice(raw.indexOf(':') + 1), 'hex'), 32)
    .endCell();
}

export function readElectionTiming(cell: Cell): ElectionTiming {
  const s = cell.beginParse();
  return { validatorsElectedFor: s.loadUint(32), electionsStartBefore: s.loadUint(32), electionsEndBefore: s.loadUint(32), stakeHeldFor: s.loadUint(32) };
}

export function electionTimingCell(t: ElectionTiming): Cell {
  return beginCell()
    .storeUint(t.validatorsElectedFor, 32)
    .storeUint(t.electionsStartBefore, 32)
    .storeUint(t.electionsEndBefore, 32)
    .storeUint(t.stakeHeldFor, 32)
    .endCell();
}

export function readStakeLimits(cell: Cell): StakeLimits {
  const s = cell.beginParse();
  return { minStake: s.loadCoins(), maxStake: s.loadCoins(), minTotalStake: s.loadCoins(), maxStakeFactor: s.loadUint(32) };
}

export function stakeLimitsCell(l: StakeLimits): Cell {
  return beginCell().storeCoins(l.minStake).storeCoins(l.maxStake).storeCoins(l.minTotalStake).storeUint(l.maxStakeFactor, 32).endCell();
}
