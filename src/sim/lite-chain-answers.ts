import { createHash } from 'node:crypto';
import { serializeTuple } from '@ton/core';
import type { LiteBlockId, LiteRequest } from '../ton/lite-api.js';
import { encodeConfigInfo, encodeMasterchainInfoExt, encodeValidatorStats } from '../ton/lite-answers.js';
import { CONFIG_ELECTOR, electorAddressCell } from '../ton/config-params.js';
import { buildMcStateProof } from '../ton/mc-state.js';
import { encodeRunMethodResult } from '../ton/run-method.js';
import { methodId } from '../ton/get-methods.js';
import { electorStack, simConfigParams, SIM_ELECTOR } from './elector.js';
import type { SimValidators } from './validators.js';

/**
 * The liteserver face's answers about the chain's head and the validators: the last
 * masterchain block with its gen_utime, config parameters and block creators in a Merkle
 * proof of a masterchain state (nothing pruned), and the elector's get-methods.
 */

const ELECTOR_HASH = SIM_ELECTOR.slice(3).toLowerCase();
const ELECTOR_METHODS = ['active_election_id', 'participant_list_extended', 'past_elections'];
/** TVM's exit code for a get-method the contract does not have. */
const NO_SUCH_METHOD = 11;

export function createLiteChainAnswers(options: { validators: SimValidators; seed: number; now: () => number }) {
  const { validators, seed } = options;
  const seconds = (): number => Math.floor(options.now() / 1000);
  const zero = createHash('sha256').update(`${seed}:zerostate`).digest();
  const configAddress = createHash('sha256').update(`${seed}:config`).digest();

  /**
   * The answer to `request` at masterchain block `mc`, or null when it is not one of these. The config and the get-methods
   * are that block's state, at its time `genUtime`: a chain held still answers the same.
   */
  return (request: LiteRequest, mc: LiteBlockId, genUtime: number): Buffer | null => {
    switch (request.kind) {
      case 'getMasterchainInfoExt':
        return encodeMasterchainInfoExt({ last: mc, lastUtime: genUtime, now: seconds() }, createHash('sha256').update(`state:${mc.seqno}`).digest(), zero);
      case 'getConfigParams': {
        const all = simConfigParams(validators, genUtime);
        const params = new Map(request.params.flatMap((param) => (all.has(param) ? [[param, all.get(param)!] as const] : [])));
        const proof = buildMcStateProof({ seqno: mc.seqno, genUtime, configAddress, params, creators: new Map() });
        return encodeConfigInfo(mc, proof.toBoc());
      }
      case 'getValidatorStats': {
        const after = request.startAfter?.toString('hex') ?? '';
        const creators = [...validators.created()]
          .filter(([key]) => key > after || (after === '' && key === '0'.repeat(64)))
          .sort(([a], [b]) => (a < b ? -1 : 1));
        const page = new Map(creators.slice(0, request.limit));
        // A state's config is never empty: the proof carries the elector's address beside the creators.
        const params = new Map([[CONFIG_ELECTOR, electorAddressCell(SIM_ELECTOR)]]);
        const proof = buildMcStateProof({ seqno: mc.seqno, genUtime, configAddress, params, creators: page });
        return encodeValidatorStats(mc, { count: page.size, complete: page.size === creators.length, dataProof: proof.toBoc() });
      }
      case 'runSmcMethod': {
        if (request.workchain !== -1 || request.account.toString('hex') !== ELECTOR_HASH) return null;
        const method = ELECTOR_METHODS.find((name) => methodId(name) === request.methodId);
        const stack = method === undefined ? null : electorStack(validators, method, genUtime);
        return encodeRunMethodResult(mc, stack === null ? NO_SUCH_METHOD : 0, serializeTuple(stack ?? []).toBoc());
      }
      default:
        return null;
    }
  };
}
