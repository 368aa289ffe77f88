import { parseAddress } from '../ton/address.js';
import { parseSignedShard } from '../ton/shard.js';
import type { SimChain, SimShardQueue } from './chain.js';
import { electorStack, simConfigParams, SIM_ELECTOR } from './elector.js';
import { stackJson } from './tvm-json.js';
import type { SimValidators } from './validators.js';

/**
 * The HTTP face's answers about the chain's heads and the validators, as toncenter's v2
 * writes them (chain-facts.md): getBlockHeader, shards, getConfigParam, and runGetMethod on
 * the elector (a POST).
 */

export const CHAIN_PATHS = new Set(['/api/v2/getBlockHeader', '/api/v2/shards', '/api/v2/getConfigParam', '/api/v2/runGetMethod']);

type Answer = { readonly status: number; readonly body: string };

const ok = (result: Record<string, unknown>): Answer => ({ status: 200, body: JSON.stringify({ ok: true, result: { ...result, '@extra': '1.0:0:0.5' } }) });
const failed = (status: number, error: string): Answer => ({ status, body: JSON.stringify({ ok: false, error, code: status }) });

const blockId = (q: SimShardQueue) => ({
  '@type': 'ton.blockIdExt',
  workchain: q.workchain,
  shard: q.shard,
  seqno: q.seqno,
  root_hash: q.rootHash,
  file_hash: q.fileHash,
});

/** A block's header: the current one, or an older one of a chain that exists, made a second per block before. */
function header(chain: SimChain, url: URL): Answer {
  const workchain = Number(url.searchParams.get('workchain'));
  const seqno = Number(url.searchParams.get('seqno'));
  let shard: bigint;
  try {
    shard = parseSignedShard(url.searchParams.get('shard') ?? '');
  } catch {
    return failed(422, 'shard: not a signed 64-bit integer');
  }
  const top = chain.queues().find((q) => q.workchain === workchain && parseSignedShard(q.shard) === shard);
  if (top === undefined || !Number.isInteger(seqno) || seqno > top.seqno) return failed(500, 'LITE_SERVER_UNKNOWN: block is not applied');
  const genUtime = top.genUtime - (top.seqno - seqno);
  return ok({
    '@type': 'blocks.header',
    id: { ...blockId(top), seqno },
    global_id: -239,
    version: 0,
    after_merge: false,
    after_split: false,
    before_split: false,
    want_merge: false,
    want_split: false,
    validator_list_hash_short: 0,
    catchain_seqno: 0,
    min_ref_mc_seqno: 0,
    is_key_block: false,
    prev_key_block_seqno: 0,
    start_lt: String(BigInt(seqno) * 1_000_000n),
    end_lt: String(BigInt(seqno) * 1_000_000n + 5n),
    gen_utime: genUtime,
    vert_seqno: 0,
    prev_blocks: [],
  });
}

/** getConfigParam: the parameter's cell as a bag of cells, empty for one the config does not have. */
function configParam(validators: SimValidators, now: number, url: URL): Answer {
  const id = Number(url.searchParams.get('config_id') ?? url.searchParams.get('param'));
  if (!Number.isInteger(id)) return failed(422, 'config_id: not an integer');
  const cell = simConfigParams(validators, now).get(id);
  return ok({ '@type': 'configInfo', config: { '@type': 'tvm.cell', bytes: cell === undefined ? '' : cell.toBoc().toString('base64') } });
}

/** runGetMethod (POST): the elector's get-methods; any other account fails as toncenter reports an account without code. */
function runGetMethod(validators: SimValidators, now: number, body: Buffer | null): Answer {
  let request: { address?: unknown; method?: unknown };
  try {
    request = JSON.parse(body?.toString('utf8') ?? '') as { address?: unknown; method?: unknown };
  } catch {
    return failed(422, 'the body is not JSON');
  }
  const address = typeof request.address === 'string' ? parseAddress(request.address) : null;
  if (address === null || !address.ok || typeof request.method !== 'string') return failed(422, 'address and method are required');
  const stack = address.value.raw === SIM_ELECTOR ? electorStack(validators, request.method, now) : null;
  return ok({
    '@type': 'smc.runResult',
    gas_used: 2_000,
    stack: stack === null ? [] : stackJson(stack),
    exit_code: stack === null ? (address.value.raw === SIM_ELECTOR ? 11 : -13) : 0,
  });
}

export function createSimChainBodies(options: { chain: SimChain; validators: SimValidators; now: () => number }) {
  const { chain, validators } = options;
  const seconds = (): number => Math.floor(options.now() / 1000);
  /** The config and the get-methods are the last masterchain state's, at its time: a chain held still answers the same. */
  const stateTime = (): number => chain.queues().find((q) => q.workchain === -1)?.genUtime ?? seconds();

  return {
    /** The answer to a request on one of CHAIN_PATHS; `body` is a POST's. */
    answer(url: URL, body: Buffer | null): Answer {
      switch (url.pathname) {
        case '/api/v2/getBlockHeader':
          return header(chain, url);
        case '/api/v2/shards':
          return ok({
            '@type': 'blocks.shards',
            shards: chain
              .queues()
              .filter((q) => q.workchain !== -1)
              .map(blockId),
          });
        case '/api/v2/getConfigParam':
          return configParam(validators, stateTime(), url);
        default:
          return runGetMethod(validators, stateTime(), body);
      }
    },
  };
}
