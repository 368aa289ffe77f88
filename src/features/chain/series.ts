import { jettonUnits } from '../../domain/jettons.js';
import { createExposition, formatValue, labelSet } from '../../metrics/text-format.js';
import type { ValidatorSet } from '../../ton/config-params.js';
import { unsignedShardToHex } from '../../ton/shard.js';
import type { WatchedValidator } from './config.js';
import { CHAIN_METRICS as M } from './families.js';
import { SET_NAMES, type HeadsSnapshot, type ValidatorsSnapshot } from './types.js';
import { watchedKey } from './watched.js';

/** Nanotons as TON, exact (9 places, trailing zeros dropped). */
const tons = (nanotons: bigint): string => jettonUnits(nanotons.toString(), 9);
const ZERO_KEY = '0'.repeat(64);

/** The chain series of what is fresh: every chain's head, the validator sets and elections, and each watched validator. Pure. */
export function renderChainSeries(heads: HeadsSnapshot | null, validators: ValidatorsSnapshot | null, watched: readonly WatchedValidator[]): string {
  const out = createExposition();
  for (const block of heads?.blocks ?? []) {
    const labels = labelSet([
      ['workchain', String(block.workchain)],
      ['shard', unsignedShardToHex(block.shard)],
    ]);
    out.add(M.blockTimestamp, labels, formatValue(block.genUtime));
  }
  if (validators !== null) {
    renderValidators(out, validators);
    for (const validator of watched) renderWatched(out, validators, validator);
  }
  return out.text();
}

type Exposition = ReturnType<typeof createExposition>;

function renderValidators(out: Exposition, v: ValidatorsSnapshot): void {
  for (const name of SET_NAMES) {
    const set = v.sets[name];
    if (set === null) continue;
    const labels = labelSet([['set', name]]);
    out.add(M.setValidators, labels, formatValue(set.total));
    out.add(M.setMainValidators, labels, formatValue(set.main));
    out.add(M.setTotalWeight, labels, set.totalWeight.toString());
    out.add(M.setStart, labels, formatValue(set.since));
    out.add(M.setEnd, labels, formatValue(set.until));
  }
  const { election } = v;
  out.add(M.electionOpen, '', election === null ? '0' : '1');
  if (election !== null) {
    out.add(M.electionId, '', formatValue(election.id));
    out.add(M.electionClose, '', formatValue(election.closesAt));
    out.add(M.electionParticipants, '', formatValue(election.participants.length));
    out.add(M.electionTotalStake, '', tons(election.totalStake));
    out.add(M.electionMinStake, '', tons(election.minStake));
  }
  if (v.timing !== null) {
    const { validatorsElectedFor, electionsStartBefore, electionsEndBefore, stakeHeldFor } = v.timing;
    for (const [param, seconds] of [
      ['validators_elected_for', validatorsElectedFor],
      ['elections_start_before', electionsStartBefore],
      ['elections_end_before', electionsEndBefore],
      ['stake_held_for', stakeHeldFor],
    ] as const) {
      out.add(M.electionTiming, labelSet([['param', param]]), formatValue(seconds));
    }
  }
  if (v.limits !== null) {
    for (const [limit, value] of [
      ['min_stake', v.limits.minStake],
      ['max_stake', v.limits.maxStake],
      ['min_total_stake', v.limits.minTotalStake],
    ] as const) {
      out.add(M.stakeLimit, labelSet([['limit', limit]]), tons(value));
    }
    out.add(M.stakeMaxFactor, '', formatValue(v.limits.maxStakeFactor / 65536));
  }
  for (const past of v.past) {
    const labels = labelSet([['election_id', String(past.id)]]);
    out.add(M.pastFrozenStake, labels, tons(past.totalStake));
    out.add(M.pastBonuses, labels, tons(past.bonuses));
    out.add(M.pastComplaints, labels, formatValue(past.complaints.length));
    out.add(M.pastUnfreeze, labels, formatValue(past.unfreezeAt));
  }
  const totals = v.creators?.get(ZERO_KEY);
  if (totals !== undefined) {
    out.add(M.blocksCreated, labelSet([['chain', 'masterchain']]), totals.masterchain.toString());
    out.add(M.blocksCreated, labelSet([['chain', 'shardchain']]), totals.shardchain.toString());
  }
}

const indexIn = (set: ValidatorSet, key: string | null): number => (key === null ? -1 : set.validators.findIndex((d) => d.publicKey === key));

function renderWatched(out: Exposition, v: ValidatorsSnapshot, validator: WatchedValidator): void {
  const key = watchedKey(v, validator);
  const own: [string, string][] = [['validator', validator.name], ...Object.entries(validator.labels)];
  const labels = labelSet(own);
  for (const name of SET_NAMES) {
    const set = v.sets[name];
    if (set === null) continue;
    const setLabels = labelSet([...own, ['set', name]]);
    const index = indexIn(set, key);
    const weight = index === -1 ? 0n : (set.validators[index]?.weight ?? 0n);
    out.add(M.validatorInSet, setLabels, index === -1 ? '0' : '1');
    out.add(M.validatorMain, setLabels, index !== -1 && index < set.main ? '1' : '0');
    out.add(M.validatorWeightShare, setLabels, formatValue(set.totalWeight === 0n ? 0 : Number(weight) / Number(set.totalWeight)));
  }
  if (v.election !== null) {
    const stake = v.election.participants.find((p) => p.publicKey === key)?.stake ?? 0n;
    out.add(M.validatorElectionStake, labels, tons(stake));
  }
  let frozen = 0n;
  let complaints = 0;
  let lastElected: number | null = null;
  for (const past of v.past) {
    const held = key === null ? undefined : past.frozen.get(key);
    if (held !== undefined) {
      frozen += held.stake;
      lastElected = Math.max(lastElected ?? 0, past.id);
    }
    complaints += past.complaints.filter((against) => against === key).length;
  }
  out.add(M.validatorFrozenStake, labels, tons(frozen));
  out.add(M.validatorComplaints, labels, formatValue(complaints));
  if (lastElected !== null) out.add(M.validatorLastElected, labels, formatValue(lastElected));
  if (v.creators !== null) {
    const created = key === null ? undefined : v.creators.get(key);
    out.add(M.validatorBlocksCreated, labelSet([...own, ['chain', 'masterchain']]), (created?.masterchain ?? 0n).toString());
    out.add(M.validatorBlocksCreated, labelSet([...own, ['chain', 'shardchain']]), (created?.shardchain ?? 0n).toString());
  }
}
