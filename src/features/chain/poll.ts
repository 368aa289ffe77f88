import { Cell } from '@ton/core';
import type { ConfigParamsAnswer } from '../../domain/chain.js';
import type { UpstreamClient } from '../../domain/upstream.js';
import type { PollResult } from '../../schedule/poll-job.js';
import {
  CONFIG_CURRENT_VALIDATORS,
  CONFIG_ELECTION_TIMING,
  CONFIG_ELECTOR,
  CONFIG_NEXT_VALIDATORS,
  CONFIG_PREVIOUS_VALIDATORS,
  CONFIG_STAKE_LIMITS,
  readElectionTiming,
  readElectorAddress,
  readStakeLimits,
  readValidatorSet,
} from '../../ton/config-params.js';
import { readElection, readPastElections } from './elector.js';
import type { HeadsSnapshot, ValidatorsSnapshot } from './types.js';

/** The config parameters the validators poll reads. */
export const VALIDATOR_PARAMS = [
  CONFIG_ELECTOR,
  CONFIG_ELECTION_TIMING,
  CONFIG_STAKE_LIMITS,
  CONFIG_PREVIOUS_VALIDATORS,
  CONFIG_CURRENT_VALIDATORS,
  CONFIG_NEXT_VALIDATORS,
];
/** The elector on mainnet and testnet, used when config 1 is absent. */
const DEFAULT_ELECTOR = `-1:${'3'.repeat(64)}`;

/** Every chain's newest block, in one poll. */
export async function pollHeads(deps: { client: UpstreamClient; publish(heads: HeadsSnapshot): void }, signal: AbortSignal): Promise<PollResult> {
  const answer = await deps.client.fetchChainHeads(signal);
  if (!answer.ok) return { ok: false, error: `${answer.error.code}: ${answer.error.message}` };
  deps.publish({ blocks: answer.value.value.blocks, fetchedAt: answer.value.fetchedAt, upstream: answer.value.upstream });
  return { ok: true };
}

export interface ValidatorsPollDeps {
  readonly client: UpstreamClient;
  publish(snapshot: ValidatorsSnapshot): void;
  /** Told once whether block creators can be had (false: no upstream gives them). */
  creatorsAvailable(available: boolean): void;
}

const cellOf = (params: ConfigParamsAnswer, param: number): Cell | null => {
  const boc = params.get(param) ?? null;
  return boc === null ? null : (Cell.fromBoc(boc)[0] ?? null);
};

/**
 * The validator sets and election rules (config parameters), the elector's open and past
 * elections, and (from a liteserver) the block creators, in one poll: config first (it
 * names the elector), then the rest at once.
 */
export async function pollValidators(deps: ValidatorsPollDeps, signal: AbortSignal): Promise<PollResult> {
  const { client } = deps;
  const config = await client.fetchConfigParams(VALIDATOR_PARAMS, signal);
  if (!config.ok) return { ok: false, error: `config: ${config.error.code}: ${config.error.message}` };
  const params = config.value.value;
  try {
    const electorCell = cellOf(params, CONFIG_ELECTOR);
    const elector = electorCell === null ? DEFAULT_ELECTOR : readElectorAddress(electorCell);
    const [election, past, creators] = await Promise.all([
      client.runGetMethod(elector, 'participant_list_extended', signal),
      client.runGetMethod(elector, 'past_elections', signal),
      client.fetchValidatorStats(signal),
    ]);
    for (const [name, answer] of [
      ['participant_list_extended', election],
      ['past_elections', past],
    ] as const) {
      if (!answer.ok) return { ok: false, error: `${name}: ${answer.error.code}: ${answer.error.message}` };
      if (answer.value.value.exitCode !== 0) return { ok: false, error: `${name}: exit code ${answer.value.value.exitCode}` };
    }
    if (!election.ok || !past.ok) return { ok: false, error: 'unreachable' };
    if (!creators.ok && creators.error.code !== 'unsupported')
      return { ok: false, error: `validator stats: ${creators.error.code}: ${creators.error.message}` };
    deps.creatorsAvailable(creators.ok);
    const set = (param: number) => {
      const cell = cellOf(params, param);
      return cell === null ? null : readValidatorSet(cell);
    };
    const timing = cellOf(params, CONFIG_ELECTION_TIMING);
    const limits = cellOf(params, CONFIG_STAKE_LIMITS);
    deps.publish({
      fetchedAt: config.value.fetchedAt,
      upstream: config.value.upstream,
      sets: { previous: set(CONFIG_PREVIOUS_VALIDATORS), current: set(CONFIG_CURRENT_VALIDATORS), next: set(CONFIG_NEXT_VALIDATORS) },
      timing: timing === null ? null : readElectionTiming(timing),
      limits: limits === null ? null : readStakeLimits(limits),
      election: readElection(election.value.value.stack),
      past: readPastElections(past.value.value.stack),
      creators: creators.ok ? creators.value.value : null,
    });
    return { ok: true };
  } catch (err) {
    // An answer whose cells or stacks are not what the chain writes: the poll fails, the last snapshot stays.
    return { ok: false, error: `unreadable answer: ${err instanceof Error ? err.message : String(err)}` };
  }
}
