import { createHash } from 'node:crypto';
import type { Random } from './random.js';

/** The simulated validators' calendar, pool and block counts (validators.ts holds their state). */

/** Validators in the simulated pool. */
export const SIM_VALIDATORS = 8;
/** The masterchain validators of a set: its first, by stake. */
export const MAIN_VALIDATORS = 5;
export const TON = 1_000_000_000n;

export interface SimValidator {
  /** Its index in the pool: the demo watches the first two. */
  readonly index: number;
  /** Hex, 64 digits. */
  readonly publicKey: string;
  readonly adnl: string;
  /** Its wallet, in the masterchain: the address (hex) that staked. */
  readonly wallet: string;
}

export interface SimElectionTiming {
  readonly roundSeconds: number;
  readonly electionsStartBefore: number;
  readonly electionsEndBefore: number;
  readonly stakeHeldFor: number;
}

/** A validator in a set or an election: who, and its stake (nanotons). */
export interface SimStake {
  readonly validator: SimValidator;
  readonly stake: bigint;
}

export interface SimComplaint {
  readonly publicKey: string;
  readonly createdAt: number;
}

export interface SimPastElection {
  readonly id: number;
  readonly unfreezeAt: number;
  readonly frozen: readonly SimStake[];
  readonly totalStake: bigint;
  readonly bonuses: bigint;
  readonly complaints: readonly SimComplaint[];
}

export interface SimSet {
  readonly since: number;
  readonly until: number;
  /** By stake, largest first: the first `main` validate the masterchain. */
  readonly members: readonly SimStake[];
  readonly main: number;
}

const hex = (text: string): string => createHash('sha256').update(text).digest('hex');

export interface ElectionCalendar {
  readonly timing: SimElectionTiming;
  readonly roundAt: (now: number) => number;
  readonly opensAt: (round: number) => number;
  readonly closesAt: (round: number) => number;
  /** When validator i enters the election of `round`: one after another across its window. */
  readonly entersAt: (v: SimValidator, round: number) => number;
}

/** The simulator's validators: keys, ADNL addresses and wallets derived from the seed. */
export function validatorPool(seed: number): SimValidator[] {
  return Array.from({ length: SIM_VALIDATORS }, (_, index) => ({
    index,
    publicKey: hex(`${seed}:validator:${index}:key`),
    adnl: hex(`${seed}:validator:${index}:adnl`),
    wallet: hex(`${seed}:validator:${index}:wallet`),
  }));
}

/**
 * The compressed election calendar: round k's set validates [k·R, (k+1)·R); its election
 * opens half a round before and closes an eighth before; stakes stay frozen a quarter of
 * a round after the set's end.
 */
export function electionCalendar(roundSeconds: number): ElectionCalendar {
  const R = Math.max(8, Math.round(roundSeconds));
  const timing: SimElectionTiming = {
    roundSeconds: R,
    electionsStartBefore: Math.round(R / 2),
    electionsEndBefore: Math.round(R / 8),
    stakeHeldFor: Math.round(R / 4),
  };
  const opensAt = (round: number): number => round * R - timing.electionsStartBefore;
  const closesAt = (round: number): number => round * R - timing.electionsEndBefore;
  return {
    timing,
    roundAt: (now) => Math.floor(now / R),
    opensAt,
    closesAt,
    entersAt: (v, round) => opensAt(round) + Math.floor(((v.index + 1) * (closesAt(round) - opensAt(round))) / (SIM_VALIDATORS + 2)),
  };
}

/** The key the totals are counted under in getValidatorStats (all zeros). */
const ZERO = '0'.repeat(64);

/**
 * One block's makers counted: the masterchain block's by turns among the main validators,
 * one for each shard at random among the set; an idle validator's blocks count only in the
 * totals.
 */
export function countBlocks(
  created: Map<string, { masterchain: bigint; shardchain: bigint }>,
  set: SimSet,
  block: { shards: number; idle: ReadonlySet<string>; random: Random },
): void {
  if (set.members.length === 0) return;
  const count = (key: string, chain: 'masterchain' | 'shardchain'): void => {
    const counts = created.get(key) ?? { masterchain: 0n, shardchain: 0n };
    counts[chain] += 1n;
    created.set(key, counts);
  };
  const total = created.get(ZERO)?.masterchain ?? 0n;
  const maker = set.members[Number(total % BigInt(set.main))]?.validator;
  count(ZERO, 'masterchain');
  if (maker !== undefined && !block.idle.has(maker.publicKey)) count(maker.publicKey, 'masterchain');
  for (let shard = 0; shard < block.shards; shard += 1) {
    const shardMaker = set.members[block.random.int(0, set.members.length - 1)]?.validator;
    count(ZERO, 'shardchain');
    if (shardMaker !== undefined && !block.idle.has(shardMaker.publicKey)) count(shardMaker.publicKey, 'shardchain');
  }
}

/** The elections whose stakes are still frozen at `now`, newest last: the elector's `past_elections`. */
export function frozenElections(
  now: number,
  calendar: ElectionCalendar,
  electedIn: (round: number) => readonly SimStake[],
  complaints: ReadonlyMap<number, readonly SimComplaint[]>,
): SimPastElection[] {
  const R = calendar.timing.roundSeconds;
  const round = calendar.roundAt(now);
  const past: SimPastElection[] = [];
  for (const j of [round - 1, round, round + 1]) {
    const unfreezeAt = (j + 1) * R + calendar.timing.stakeHeldFor;
    if (now < calendar.closesAt(j) || now >= unfreezeAt) continue;
    const frozen = electedIn(j);
    const served = Math.max(0, Math.min(now, (j + 1) * R) - j * R);
    past.push({
      id: j * R,
      unfreezeAt,
      frozen,
      totalStake: frozen.reduce((sum, s) => sum + s.stake, 0n),
      bonuses: BigInt(served) * TON,
      complaints: complaints.get(j) ?? [],
    });
  }
  return past;
}
