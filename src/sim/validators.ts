import type { Random } from './random.js';
import {
  countBlocks,
  electionCalendar,
  frozenElections,
  MAIN_VALIDATORS,
  TON,
  validatorPool,
  type SimComplaint,
  type SimElectionTiming,
  type SimPastElection,
  type SimSet,
  type SimStake,
  type SimValidator,
} from './elections.js';

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

export function createSimValidators(options: { seed: number; random: Random; roundSeconds: number }): SimValidators {
  const calendar = electionCalendar(options.roundSeconds);
  const { timing, roundAt, opensAt, closesAt, entersAt } = calendar;
  const R = timing.roundSeconds;
  const pool = validatorPool(options.seed);
  const byKey = new Map(pool.map((v) => [v.publicKey, v]));
  const dropped = new Set<string>();
  const idle = new Set<string>();
  /** Who won the election of round k, fixed when it closed (or first asked after). */
  const winners = new Map<number, readonly SimStake[]>();
  const complaints = new Map<number, SimComplaint[]>();
  const created = new Map<string, { masterchain: bigint; shardchain: bigint }>();

  const stakeOf = (v: SimValidator, round: number): bigint => (300_000n + BigInt(v.index) * 25_000n + BigInt(round % 7) * 1_000n) * TON;

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
    pastElections: (now) => frozenElections(now, calendar, electedIn, complaints),
    created: () => created,
    step: (now, shards) => countBlocks(created, setOf(roundAt(now)), { shards, idle, random: options.random }),
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
