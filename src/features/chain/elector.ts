import type { Cell } from '@ton/core';
import { Dictionary, type Slice, type TupleItem } from '@ton/core';
import { TonParseError } from '../../ton/errors.js';

/**
 * The elector's get-methods read from their result stacks (chain-facts.md, "The elector"),
 * whichever upstream kind ran them: toncenter's lists come back as nested pairs, as a
 * liteserver's do (upstream/http/tvm-stack.ts), so one reader serves both.
 *
 *   participant_list_extended() → (elect_at, elect_close, min_stake, total_stake,
 *     [[pubkey, [stake, max_factor, wallet_addr, adnl_addr]], …], failed, finished)
 *   past_elections() → [[id, unfreeze_at, stake_held, vset_hash, frozen_dict, total_stake,
 *     bonuses, complaints], …]
 *   frozen_dict: pubkey → addr:uint256 weight:uint64 stake:Grams banned:Bool
 *   complaints: hash → complaint_status#2d complaint:^(validator_complaint#bc
 *     validator_pubkey:uint256 …) …
 *
 * Amounts stay bigints (nanotons); keys are 64 lowercase hex digits.
 */

export interface Participant {
  readonly publicKey: string;
  readonly stake: bigint;
  /** Fixed point: 65536 is 1×. */
  readonly maxFactor: number;
  readonly wallet: string;
  readonly adnl: string;
}

export interface Election {
  /** elect_at: when the set it elects takes over, unix seconds; the election's id. */
  readonly id: number;
  readonly closesAt: number;
  readonly minStake: bigint;
  readonly totalStake: bigint;
  readonly participants: readonly Participant[];
  readonly failed: boolean;
  readonly finished: boolean;
}

export interface PastElection {
  readonly id: number;
  readonly unfreezeAt: number;
  readonly totalStake: bigint;
  readonly bonuses: bigint;
  /** Stakes frozen, by public key. */
  readonly frozen: ReadonlyMap<string, { readonly stake: bigint; readonly weight: bigint }>;
  /** The public key each complaint is against, one entry per complaint. */
  readonly complaints: readonly string[];
}

const fail = (what: string): never => {
  throw new TonParseError('bad_data', what);
};

const intOf = (item: TupleItem | undefined, what: string): bigint => (item?.type === 'int' ? item.value : fail(`${what}: not a number`));
const numberOf = (item: TupleItem | undefined, what: string): number => Number(intOf(item, what));
const keyOf = (item: TupleItem | undefined, what: string): string => BigInt.asUintN(256, intOf(item, what)).toString(16).padStart(64, '0');
const tupleOf = (item: TupleItem | undefined, what: string): TupleItem[] => (item?.type === 'tuple' ? item.items : fail(`${what}: not a tuple`));

/** A FunC list (nested pairs ending in null) as an array. */
function listOf(item: TupleItem | undefined, what: string): TupleItem[] {
  const items: TupleItem[] = [];
  let rest = item;
  while (rest?.type === 'tuple') {
    if (rest.items.length !== 2) fail(`${what}: not a list`);
    items.push(rest.items[0] as TupleItem);
    rest = rest.items[1];
    if (items.length > 10_000) fail(`${what}: a list too long`);
  }
  if (rest?.type !== 'null') fail(`${what}: not a list`);
  return items;
}

/** A dictionary's root cell, or null for an empty one (a null entry, as both kinds send it). */
const dictCellOf = (item: TupleItem | undefined, what: string): Cell | null =>
  item?.type === 'null' ? null : item?.type === 'cell' || item?.type === 'slice' ? item.cell : fail(`${what}: not a dictionary`);

/** The open election, or null when none is (elect_at 0). */
export function readElection(stack: readonly TupleItem[]): Election | null {
  const id = numberOf(stack[0], 'elect_at');
  if (id === 0) return null;
  const participants = listOf(stack[4], 'participants').map((entry): Participant => {
    const [key, details] = tupleOf(entry, 'participant');
    const [stake, maxFactor, wallet, adnl] = tupleOf(details, 'participant details');
    return {
      publicKey: keyOf(key, 'participant key'),
      stake: intOf(stake, 'stake'),
      maxFactor: numberOf(maxFactor, 'max_factor'),
      wallet: keyOf(wallet, 'wallet'),
      adnl: keyOf(adnl, 'adnl'),
    };
  });
  return {
    id,
    closesAt: numberOf(stack[1], 'elect_close'),
    minStake: intOf(stack[2], 'min_stake'),
    totalStake: intOf(stack[3], 'total_stake'),
    participants,
    failed: intOf(stack[5], 'failed') !== 0n,
    finished: intOf(stack[6], 'finished') !== 0n,
  };
}

const FROZEN = {
  serialize: () => fail('read only'),
  parse: (s: Slice) => {
    s.skip(256);
    const weight = s.loadUintBig(64);
    return { stake: s.loadCoins(), weight };
  },
};

const COMPLAINT = {
  serialize: () => fail('read only'),
  parse: (s: Slice): string => {
    if (s.loadUint(8) !== 0x2d) fail('not a complaint_status');
    const complaint = s.loadRef().beginParse();
    if (complaint.loadUint(8) !== 0xbc) fail('not a validator_complaint');
    return complaint.loadBuffer(32).toString('hex');
  },
};

/** The past elections whose stakes are still frozen, in the elector's order. */
export function readPastElections(stack: readonly TupleItem[]): PastElection[] {
  return listOf(stack[0], 'past elections').map((entry): PastElection => {
    const [id, unfreezeAt, , , frozenDict, totalStake, bonuses, complaintsDict] = tupleOf(entry, 'past election');
    const frozenRoot = dictCellOf(frozenDict, 'frozen_dict');
    const complaintsRoot = dictCellOf(complaintsDict, 'complaints');
    const frozen = frozenRoot === null ? null : Dictionary.loadDirect(Dictionary.Keys.BigUint(256), FROZEN, frozenRoot);
    const complaints = complaintsRoot === null ? [] : Dictionary.loadDirect(Dictionary.Keys.BigUint(256), COMPLAINT, complaintsRoot).values();
    return {
      id: numberOf(id, 'election id'),
      unfreezeAt: numberOf(unfreezeAt, 'unfreeze_at'),
      totalStake: intOf(totalStake, 'total_stake'),
      bonuses: intOf(bonuses, 'bonuses'),
      frozen: new Map(frozen === null ? [] : frozen.keys().map((key) => [key.toString(16).padStart(64, '0'), frozen.get(key)!])),
      complaints,
    };
  });
}
