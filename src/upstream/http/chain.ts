import * as z from 'zod';
import type { ChainHeadsAnswer, ConfigParamsAnswer, GetMethodAnswer, ValidatorStatsAnswer } from '../../domain/chain.js';
import type { Result } from '../../domain/upstream.js';
import { parseSignedShard } from '../../ton/shard.js';
import type { UpstreamCalls } from '../calls.js';
import { UpstreamError } from '../errors.js';
import type { AttemptOf } from './attempt.js';
import { blockIdSchema } from './schemas.js';
import { readStack, StackFormatError } from './tvm-stack.js';

/**
 * The chain-and-validator calls over toncenter's v2 (chain-facts.md): every chain's newest
 * block from getMasterchainInfo, `shards` and one getBlockHeader per block; config
 * parameters one getConfigParam each; get-methods through runGetMethod (a POST). It has no
 * call for block creation counters.
 */

const envelope = <T extends z.ZodType>(result: T) => z.object({ ok: z.literal(true), result });

const masterchainLastSchema = envelope(z.object({ last: blockIdSchema }));
const shardsSchema = envelope(z.object({ shards: z.array(blockIdSchema) }));
const blockHeaderSchema = envelope(z.object({ gen_utime: z.number().int().nonnegative() }));
/** The parameter's value cell; `bytes` is empty for a parameter the config does not hold. */
const configParamSchema = envelope(z.object({ config: z.object({ bytes: z.string() }) }));
const runResultSchema = envelope(
  z.object({ exit_code: z.number().int(), stack: z.array(z.unknown()) }).transform((result, ctx) => {
    try {
      return { exitCode: result.exit_code, stack: readStack(result.stack) };
    } catch (err) {
      if (!(err instanceof StackFormatError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message, path: ['stack'] });
      return z.NEVER;
    }
  }),
);

type ChainCalls = Pick<UpstreamCalls, 'chainHeads' | 'configParams' | 'getMethod' | 'validatorStats'>;

export function httpChainCalls(name: string, attempt: AttemptOf): ChainCalls {
  const heads = { query: 'chain_heads', priority: 'chain' } as const;
  const validators = { query: 'validators', priority: 'chain' } as const;
  return {
    async chainHeads(signal): Promise<Result<ChainHeadsAnswer, UpstreamError>> {
      const info = await attempt({ ...heads, path: '/api/v2/getMasterchainInfo', schema: masterchainLastSchema }, signal);
      if (!info.ok) return info;
      const { last } = info.value.result;
      const shards = await attempt({ ...heads, path: '/api/v2/shards', search: `seqno=${last.seqno}`, schema: shardsSchema }, signal);
      if (!shards.ok) return shards;
      const ids = [last, ...shards.value.result.shards];
      const headers = await Promise.all(
        ids.map((id) =>
          attempt(
            { ...heads, path: '/api/v2/getBlockHeader', search: `workchain=${id.workchain}&shard=${id.shard}&seqno=${id.seqno}`, schema: blockHeaderSchema },
            signal,
          ),
        ),
      );
      const blocks = [];
      for (const [i, header] of headers.entries()) {
        const id = ids[i];
        if (!header.ok) return header;
        if (id !== undefined)
          blocks.push({
            workchain: id.workchain,
            shard: BigInt.asUintN(64, parseSignedShard(id.shard)),
            seqno: id.seqno,
            genUtime: header.value.result.gen_utime,
          });
      }
      return { ok: true, value: { blocks } };
    },
    async configParams(params, signal): Promise<Result<ConfigParamsAnswer, UpstreamError>> {
      const answers = await Promise.all(
        params.map((param) => attempt({ ...validators, path: '/api/v2/getConfigParam', search: `config_id=${param}`, schema: configParamSchema }, signal)),
      );
      const cells = new Map<number, Buffer | null>();
      for (const [i, answer] of answers.entries()) {
        if (!answer.ok) return answer;
        const { bytes } = answer.value.result.config;
        cells.set(params[i] ?? -1, bytes === '' ? null : Buffer.from(bytes, 'base64'));
      }
      return { ok: true, value: cells };
    },
    async getMethod(address, method, signal): Promise<Result<GetMethodAnswer, UpstreamError>> {
      const answer = await attempt({ ...validators, path: '/api/v2/runGetMethod', body: { address, method, stack: [] }, schema: runResultSchema }, signal);
      return answer.ok ? { ok: true, value: answer.value.result } : answer;
    },
    validatorStats(): Promise<Result<ValidatorStatsAnswer, UpstreamError>> {
      const message = 'toncenter has no call for block creation counters (liteServer.getValidatorStats): add a liteserver upstream';
      return Promise.resolve({ ok: false, error: new UpstreamError('unsupported', message, { upstream: name, query: 'validators' }) });
    },
  };
}
