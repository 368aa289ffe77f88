import { Cell, parseTuple, serializeTuple } from '@ton/core';
import type { ChainHeadsAnswer, ConfigParamsAnswer, GetMethodAnswer, ValidatorStatsAnswer } from '../../domain/chain.js';
import type { Result } from '../../domain/upstream.js';
import { methodId } from '../../ton/get-methods.js';
import type { LiteBlockId } from '../../ton/lite-api.js';
import { decodeAllShardsInfo, decodeConfigInfo, decodeMasterchainInfo, decodeMasterchainInfoExt, decodeValidatorStats } from '../../ton/lite-answers.js';
import { readConfigFromProof, readCreatorStats, type CreatorCounts } from '../../ton/mc-state.js';
import { decodeRunMethodResult } from '../../ton/run-method.js';
import { parseShardHashes } from '../../ton/shard-hashes.js';
import type { UpstreamCalls } from '../calls.js';
import type { UpstreamError } from '../errors.js';
import type { LiteCall } from './account-states.js';

/**
 * The chain-and-validator calls over the lite API (chain-facts.md, "Liteserver"): every
 * chain's newest block in two calls (getMasterchainInfoExt, whose last_utime is the
 * masterchain block's gen_utime, and getAllShardsInfo, whose shard descriptions carry
 * theirs); config parameters in one getConfigParams; get-methods by runSmcMethod; block
 * creation counters by getValidatorStats, a thousand creators a page.
 */

const MC_SHARD = 0x8000000000000000n;
/** Creators per getValidatorStats page: a liteserver gives at most this many. */
const STATS_PAGE = 1000;
/** Pages at most: a validator set has a few hundred members. */
const MAX_STATS_PAGES = 16;

type ChainCalls = Pick<UpstreamCalls, 'chainHeads' | 'configParams' | 'getMethod' | 'validatorStats'>;

export function liteChainCalls(call: LiteCall): ChainCalls {
  const last = (query: 'chain_heads' | 'validators', signal: AbortSignal | undefined) =>
    call(query, 'chain', { kind: 'getMasterchainInfo' }, (a) => decodeMasterchainInfo(a).last, signal);

  /** Every page of block creators at `block`, merged. */
  async function creators(block: LiteBlockId, signal: AbortSignal | undefined): Promise<Result<ValidatorStatsAnswer, UpstreamError>> {
    const all = new Map<string, CreatorCounts>();
    let startAfter: Buffer | null = null;
    for (let page = 0; page < MAX_STATS_PAGES; page += 1) {
      const request = { kind: 'getValidatorStats', id: block, limit: STATS_PAGE, startAfter } as const;
      const answer = await call('validators', 'chain', request, decodeValidatorStats, signal);
      if (!answer.ok) return answer;
      const [root] = Cell.fromBoc(answer.value.dataProof);
      const found = root === undefined ? new Map<string, CreatorCounts>() : readCreatorStats(root);
      for (const [key, counts] of found) all.set(key, counts);
      const lastKey = [...found.keys()].sort().at(-1);
      if (answer.value.complete || lastKey === undefined) break;
      startAfter = Buffer.from(lastKey, 'hex');
    }
    return { ok: true, value: all };
  }

  return {
    async chainHeads(signal): Promise<Result<ChainHeadsAnswer, UpstreamError>> {
      const info = await call('chain_heads', 'chain', { kind: 'getMasterchainInfoExt' }, decodeMasterchainInfoExt, signal);
      if (!info.ok) return info;
      const { last: mc, lastUtime } = info.value;
      const shards = await call('chain_heads', 'chain', { kind: 'getAllShardsInfo', id: mc }, (a) => parseShardHashes(decodeAllShardsInfo(a).data), signal);
      if (!shards.ok) return shards;
      const masterchain = { workchain: -1, shard: MC_SHARD, seqno: mc.seqno, genUtime: lastUtime };
      const blocks = shards.value.map((s) => ({ workchain: s.workchain, shard: s.shard, seqno: s.seqno, genUtime: s.genUtime }));
      return { ok: true, value: { blocks: [masterchain, ...blocks] } };
    },
    async configParams(params, signal): Promise<Result<ConfigParamsAnswer, UpstreamError>> {
      const block = await last('validators', signal);
      if (!block.ok) return block;
      const read = (answer: Buffer): ConfigParamsAnswer => {
        const [proof] = Cell.fromBoc(decodeConfigInfo(answer).configProof);
        if (proof === undefined) throw new Error('an empty config proof');
        return new Map([...readConfigFromProof(proof, params)].map(([param, cell]) => [param, cell === null ? null : cell.toBoc()]));
      };
      return call('validators', 'chain', { kind: 'getConfigParams', id: block.value, params }, read, signal);
    },
    async getMethod(address, method, signal): Promise<Result<GetMethodAnswer, UpstreamError>> {
      const block = await last('validators', signal);
      if (!block.ok) return block;
      const [workchain, hex] = address.split(':') as [string, string];
      const request = {
        kind: 'runSmcMethod',
        id: block.value,
        workchain: Number(workchain),
        account: Buffer.from(hex, 'hex'),
        methodId: methodId(method),
        // An empty VmStack: the elector's get-methods take no argument.
        params: serializeTuple([]).toBoc(),
      } as const;
      const read = (answer: Buffer): GetMethodAnswer => {
        const { exitCode, result } = decodeRunMethodResult(answer);
        const root = result === null ? undefined : Cell.fromBoc(result)[0];
        return { exitCode, stack: root === undefined ? [] : parseTuple(root) };
      };
      return call('validators', 'chain', request, read, signal);
    },
    async validatorStats(signal): Promise<Result<ValidatorStatsAnswer, UpstreamError>> {
      const block = await last('validators', signal);
      if (!block.ok) return block;
      return creators(block.value, signal);
    },
  };
}
