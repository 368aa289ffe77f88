import { beginCell, Dictionary, type Cell, type TupleItem } from '@ton/core';
import {
  CONFIG_CURRENT_VALIDATORS,
  CONFIG_ELECTION_TIMING,
  CONFIG_ELECTOR,
  CONFIG_NEXT_VALIDATORS,
  CONFIG_PREVIOUS_VALIDATORS,
  CONFIG_STAKE_LIMITS,
  electionTimingCell,
  electorAddressCell,
  stakeLimitsCell,
  validatorSetCell,
} from '../ton/config-params.js';
import type { SimPastElection, SimSet } from './elections.js';
import type { SimValidators } from './validators.js';

/**
 * The simulated validators as the chain shows them: config parameters 1, 15, 17, 32, 34
 * and 36 as value cells, and the elector's get-methods as result stacks (@ton/core items,
 * the first value returned first; a list as nested pairs), the same for both faces.
 */

/** The elector's account, as on mainnet. */
export const SIM_ELECTOR = `-1:${'3'.repeat(64)}`;
const TON = 1_000_000_000n;
const STAKE_LIMITS = { minStake: 10_000n * TON, maxStake: 10_000_000n * TON, minTotalStake: 100_000n * TON, maxStakeFactor: 3 * 65536 };

const setCell = (set: SimSet): Cell =>
  validatorSetCell({
    since: set.since,
    until: set.until,
    total: set.members.length,
    main: set.main,
    validators: set.members.map((m) => ({ publicKey: m.validator.publicKey, weight: m.stake / TON, adnl: m.validator.adnl })),
  });

/** The config parameters tonwatch polls, at `now` (seconds): 36 only once the next set is elected. */
export function simConfigParams(validators: SimValidators, now: number): Map<number, Cell> {
  const { previous, current, next } = validators.sets(now);
  const { timing } = validators;
  const params = new Map<number, Cell>([
    [CONFIG_ELECTOR, electorAddressCell(SIM_ELECTOR)],
    [
      CONFIG_ELECTION_TIMING,
      electionTimingCell({
        validatorsElectedFor: timing.roundSeconds,
        electionsStartBefore: timing.electionsStartBefore,
        electionsEndBefore: timing.electionsEndBefore,
        stakeHeldFor: timing.stakeHeldFor,
      }),
    ],
    [CONFIG_STAKE_LIMITS, stakeLimitsCell(STAKE_LIMITS)],
    [CONFIG_CURRENT_VALIDATORS, setCell(current)],
  ]);
  if (previous !== null) params.set(CONFIG_PREVIOUS_VALIDATORS, setCell(previous));
  if (next !== null) params.set(CONFIG_NEXT_VALIDATORS, setCell(next));
  return params;
}

const int = (value: bigint | number): TupleItem => ({ type: 'int', value: BigInt(value) });
const hexInt = (hex: string): TupleItem => int(BigInt(`0x${hex}`));
/** A FunC list: nested pairs ending in null. */
const list = (items: readonly TupleItem[]): TupleItem =>
  items.reduceRight<TupleItem>((rest, item) => ({ type: 'tuple', items: [item, rest] }), { type: 'null' });

/** frozen_dict: validator_pubkey → `addr:uint256 weight:uint64 stake:Grams banned:Bool`; null when empty. */
function frozenDict(past: SimPastElection): Cell | null {
  if (past.frozen.length === 0) return null;
  const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  for (const { validator, stake } of past.frozen) {
    dict.set(
      BigInt(`0x${validator.publicKey}`),
      beginCell()
        .storeBuffer(Buffer.from(validator.wallet, 'hex'), 32)
        .storeUint(stake / TON, 64)
        .storeCoins(stake)
        .storeBit(false)
        .endCell(),
    );
  }
  return beginCell().storeDictDirect(dict, Dictionary.Keys.BigUint(256), inline).endCell();
}

/** complaints: complaint hash → complaint_status#2d (complaint:^validator_complaint#bc …); null when none. */
function complaintsDict(past: SimPastElection): Cell | null {
  if (past.complaints.length === 0) return null;
  const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  past.complaints.forEach((c, i) => {
    const complaint = beginCell()
      .storeUint(0xbc, 8)
      .storeBuffer(Buffer.from(c.publicKey, 'hex'), 32)
      .storeRef(beginCell().endCell())
      .storeUint(c.createdAt, 32)
      .storeUint(1, 8)
      .storeUint(0, 256)
      .storeCoins(0)
      .storeCoins(1_000n * TON)
      .storeUint(0, 32)
      .endCell();
    const status = beginCell()
      .storeUint(0x2d, 8)
      .storeRef(complaint)
      .storeBit(false)
      .storeUint(past.id, 256)
      .storeInt(1n << 40n, 64)
      .endCell();
    dict.set(BigInt(i + 1), status);
  });
  return beginCell().storeDictDirect(dict, Dictionary.Keys.BigUint(256), inline).endCell();
}

/** A dictionary value stored in its leaf, not by reference. */
const inline = {
  serialize: (cell: Cell, b: ReturnType<typeof beginCell>) => void b.storeSlice(cell.beginParse()),
  parse: (s: ReturnType<Cell['beginParse']>): Cell => beginCell().storeSlice(s).endCell(),
};

const cellOrNull = (cell: Cell | null): TupleItem => (cell === null ? { type: 'null' } : { type: 'cell', cell });

/** The stack the elector's get-method `method` returns at `now`; null for a method it does not have (exit code 11). */
export function electorStack(validators: SimValidators, method: string, now: number): TupleItem[] | null {
  switch (method) {
    case 'active_election_id':
      return [int(validators.election(now)?.id ?? 0)];
    case 'participant_list_extended': {
      const election = validators.election(now);
      if (election === null) return [int(0), int(0), int(0), int(0), { type: 'null' }, int(0), int(0)];
      const total = election.participants.reduce((sum, p) => sum + p.stake, 0n);
      const participants = election.participants.map((p) => ({
        type: 'tuple' as const,
        items: [
          hexInt(p.validator.publicKey),
          { type: 'tuple' as const, items: [int(p.stake), int(STAKE_LIMITS.maxStakeFactor), hexInt(p.validator.wallet), hexInt(p.validator.adnl)] },
        ],
      }));
      return [int(election.id), int(election.closesAt), int(STAKE_LIMITS.minStake), int(total), list(participants), int(0), int(0)];
    }
    case 'past_elections': {
      const past = validators.pastElections(now).map((p): TupleItem => ({
        type: 'tuple',
        items: [
          int(p.id),
          int(p.unfreezeAt),
          int(validators.timing.stakeHeldFor),
          int(p.id * 7919),
          cellOrNull(frozenDict(p)),
          int(p.totalStake),
          int(p.bonuses),
          cellOrNull(complaintsDict(p)),
        ],
      }));
      // In ascending key (election id) order, as the elector's dictionary walk gives them.
      return [list(past)];
    }
    default:
      return null;
  }
}
