import { createHash } from 'node:crypto';
import type { Random } from './random.js';

/**
 * The simulated validator set and its elections, on a compressed clock: a round lasts
 * `roundSeconds` (mainnet: about 18 hours), with config 15 in proportion to mainnet's. The
 * set of round k is in force from k·R to (k+1)·R; the election of round k+1 opens at
 * (k+1)·R − electionsStartBefore, fills as the pool's validators enter one after another,
 * and closes at (k+1)·R − electionsEndBefore, when its winners become the next set (config
 * 36) and their stakes are frozen (a past election) until stakeHeldFor after their round.
 * Controls drop a validator from the elections that close from then on, file a complaint
 * against one, or stop one creating blocks.
 */

/** Validators in the simulated pool. */
export const SIM_VALIDATORS = 8;
/** The masterchain validators of a set: its first, by stake. */
const MAIN_VALIDATORS = 5;
const TON = 1_000_000_000n;

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

export interface SimElection {
  readonly id: number;
  readonly closesAt: number;
  readonly participants: readonly SimStake[];
}

export interface SimValidators {
  readonly pool: readonly SimValidator[];
  readonly timing: SimElectionTiming;
  /** The set of the round in force at `now` (seconds): `previous` (config 32), `current` (34) and, once its election closed, `next` (36). */
  sets(now: number): { readonly previous: SimSet | null; readonly current: SimSet; readonly next: SimSet | null };
  /** The open election at `now`, or null. */
  election(now: number): SimElection | null;
  /** The elector's past elections at `now`: those whose stakes are still frozen, newest last. */
  pastElections(now: number): readonly SimPastElection[];
  /** Blocks created so far, by public key; the all-zero key holds the totals. */
  created(): ReadonlyMap<string, { masterchain: bigint; shardchain: bigint }>;
  /** One block on the masterchain and on each of `shards` shards, created by the set in force at `now`. */
  step(now: number, shards: number): void;
  /** Keeps a validator out of (or lets it back into) the elections that close from now on; false for an unknown key. */
  drop(publicKey: string, dropped: boolean): boolean;
  /** Files a complaint against a validator in the newest past election at `now`; false when there is none, or the key is unknown. */
  complain(publicKey: string, now: number): boolean;
  /** Stops (or lets go on) a validator creating its blocks. */
  idle(publicKey: string, idle: boolean): boolean;
}

export interface SimSet {
  readonly since: number;
  readonly until: number;
  /** By stake, largest first: the first `main` validate the masterchain. */
  readonly members: readonly SimStake[];
  readonly main: number;
}

const hex = (text: string): string => createHash('sha256').update(text).digest('hex');

export function createSimValidators(options: { seed: number; random: Random; roundSeconds: number }): SimValidators {
  const R = Math.max(8, Math.round(options.roundSeconds));
  const timing: SimElectionTiming = {
    roundSeconds: R,
    electionsStartBefore: Math.round(R / 2),
    electionsEndBefore: Math.round(R / 8),
    stakeHeldFor: Math.round(R / 4),
  };
  const pool: SimValidator[] = Array.from({ length: SIM_VALIDATORS }, (_, index) => ({
    index,
    publicKey: hex(`${options.seed}:validator:${index}:key`),
    adnl: hex(`${options.seed}:validator:${index}:adnl`),
    wallet: hex(`${options.seed}:validator:${index}:wallet`),
  }));
  const byKey = new Map(pool.map((v) => [v.publicKey, v]));
  const dropped = new Set<string>();
  const idle = new Set<string>();
  /** Who won the election of round k, fixed when it closed (or first asked after). */
  const winners = new Map<number, readonly SimStake[]>();
  const complaints = new Map<number, SimComplaint[]>();
  const created = new Map<string, { masterchain: bigint; shardchain: bigint }>();
  const ZERO = '0'.repeat(64);

  const stakeOf = (v: SimValidator, round: number): bigint => (300_000n + BigInt(v.index) * 25_000n + BigInt(round % 7) * 1_000n) * TON;
  const roundAt = (now: number): number => Math.floor(now / R);
  const opensAt = (round: number): number => round * R - timing.electionsStartBefore;
  const closesAt = (round: number): number => round * R - timing.electionsEndBefore;
  /** When validator i enters the election of `round`: one after another across its window. */
  const entersAt = (v: SimValidator, round: number): number =>
    opensAt(round) + Math.floor(((v.index + 1) * (closesAt(round) - opensAt(round))) / (SIM_VALIDATORS + 2));

  const electedIn = (round: number): readonly SimStake[] => {
    let won = winners.get(round);
    if (won === undefined) {
      won = pool
        .filter((v) => !dropped.has(v.publicKey))
        .map((validator) => ({ validator, stake: stakeOf(validator, round) }))
        .sort((a, b) => (a.stake === b.stake ? 0 : a.stake > b.stake ? -1 : 1));
      winners.set(round, won);
      // Only the newest few rounds are ever asked for again.
      for (const old of winners.keys()) if (old < round - 4) winners.delete(old);
    }
    return won;
  };
  const setOf = (round: number): SimSet => {
    const members = electedIn(round);
    return { since: round * R, until: (round + 1) * R, members, main: Math.min(MAIN_VALIDATORS, members.length) };
  };

  const count = (key: string, chain: 'masterchain' | 'shardchain', blocks: number): void => {
    const counts = created.get(key) ?? { masterchain: 0n, shardchain: 0n };
    counts[chain] += BigInt(blocks);
    created.set(key, counts);
  };

  return {
    pool,
    timing,
    sets(now) {
      const round = roundAt(now);
      return { previous: setOf(round - 1), current: setOf(round), next: now >= closesAt(round + 1) ? setOf(round + 1) : null };
    },
    election(now) {
      const round = roundAt(now) + 1;
      if (now < opensAt(round) || now >= closesAt(round)) return null;
      const participants = pool
        .filter((v) => !dropped.has(v.publicKey) && now >= entersAt(v, round))
        .map((validator) => ({ validator, stake: stakeOf(validator, round) }));
      return { id: round * R, closesAt: closesAt(round), participants };
    },
    pastElections(now) {
      const round = roundAt(now);
      const past: SimPastElection[] = [];
      for (const j of [round - 1, round, round + 1]) {
        const unfreezeAt = (j + 1) * R + timing.stakeHeldFor;
        if (now < closesAt(j) || now >= unfreezeAt) continue;
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
    },
    created: () => created,
    step(now, shards) {
      const set = setOf(roundAt(now));
      if (set.members.length === 0) return;
      const total = created.get(ZERO)?.masterchain ?? 0n;
      const maker = set.members[Number(total % BigInt(set.main))]?.validator;
      count(ZERO, 'masterchain', 1);
      if (maker !== undefined && !idle.has(maker.publicKey)) count(maker.publicKey, 'masterchain', 1);
      for (let shard = 0; shard < shards; shard += 1) {
        const shardMaker = set.members[options.random.int(0, set.members.length - 1)]?.validator;
        count(ZERO, 'shardchain', 1);
        if (shardMaker !== undefined && !idle.has(shardMaker.publicKey)) count(shardMaker.publicKey, 'shardchain', 1);
      }
    },
    drop(publicKey, drop) {
      if (!byKey.has(publicKey)) return false;
      if (drop) dropped.add(publicKey);
      else dropped.delete(publicKey);
      return true;
    },
    complain(publicKey, now) {
      const round = roundAt(now);
      // The newest election whose stakes are frozen: the next set's once its election closed.
      const election = now >= closesAt(round + 1) ? round + 1 : round;
      if (!byKey.has(publicKey) || !electedIn(election).some((s) => s.validator.publicKey === publicKey)) return false;
      complaints.set(election, [...(complaints.get(election) ?? []), { publicKey, createdAt: now }]);
      return true;
    },
    idle(publicKey, off) {
      if (!byKey.has(publicKey)) return false;
      if (off) idle.add(publicKey);
      else idle.delete(publicKey);
      return true;
    },
  };
}
