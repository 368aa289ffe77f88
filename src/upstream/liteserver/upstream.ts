import { TonParseError } from '../../ton/errors.js';
import type { LiteserverUpstreamSettings } from './settings.js';
import type { QueueSizesAnswer, Result, UpstreamQuery } from '../../domain/upstream.js';
import { LiteServerError, type LiteBlockId, type LiteRequest } from '../../ton/lite-api.js';
import { decodeAllShardsInfo, decodeBlockOutMsgQueueSize, decodeMasterchainInfo, decodeOutMsgQueueSizes } from '../../ton/lite-answers.js';
import { parseShardHashes } from '../../ton/shard-hashes.js';
import { unsignedShardToSigned } from '../../ton/shard.js';
import type { RequestPriority } from '../budget.js';
import type { UpstreamCalls, UpstreamCallsDeps } from '../calls.js';
import { UpstreamError } from '../errors.js';
import { LiteTransportError } from './connection.js';
import { createLitePool } from './pool.js';
import { walletStatesOf, type LiteCall } from './account-states.js';
import { jettonMetadataOf, jettonWalletsOf } from './jettons.js';
import { liteChainCalls } from './chain.js';

/**
 * A `kind: liteserver` upstream: the two polls and the tip, each as a sequence of lite API
 * calls inside the upstream's budget, every call counted in tonwatch_upstream_requests_total
 * (`ok`, or the failure's code). What comes back has the same shape as from HTTP.
 */

/** ext_msg_queue_size_limit when the per-block path is all a liteserver offers: the collator's constant. */
export const DEFAULT_EXT_MSG_QUEUE_SIZE_LIMIT = 8000;

export interface LiteUpstreamDeps extends UpstreamCallsDeps {
  readonly settings: LiteserverUpstreamSettings;
}

const base64 = (b: Buffer): string => b.toString('base64');
const blockIdOf = (id: LiteBlockId) => ({
  workchain: id.workchain,
  shard: unsignedShardToSigned(id.shard),
  seqno: id.seqno,
  root_hash: base64(id.rootHash),
  file_hash: base64(id.fileHash),
});
/** Masterchain first, then by workchain and shard, as the HTTP answer comes. */
const byWorkchainThenShard = (a: { id: LiteBlockId }, b: { id: LiteBlockId }): number =>
  a.id.workchain !== b.id.workchain
    ? a.id.workchain === -1
      ? -1
      : b.id.workchain === -1
        ? 1
        : a.id.workchain - b.id.workchain
    : a.id.shard < b.id.shard
      ? -1
      : a.id.shard > b.id.shard
        ? 1
        : 0;

/** One lite API call inside the budget, decoded; counted whether it worked or not (not when aborted before it was sent). */
function liteCallOf(deps: LiteUpstreamDeps, pool: ReturnType<typeof createLitePool>): LiteCall {
  const { settings, budget, observer, now } = deps;
  const name = settings.name;
  return async <T>(
    query: UpstreamQuery,
    priority: RequestPriority,
    request: LiteRequest,
    decode: (answer: Buffer) => T,
    signal: AbortSignal | undefined,
  ): Promise<Result<T, UpstreamError>> => {
    try {
      await budget.acquire(priority, signal);
    } catch (cause) {
      return { ok: false, error: new UpstreamError('aborted', 'aborted while waiting for the request budget', { upstream: name, query, cause }) };
    }
    const started = now();
    let result: Result<T, UpstreamError>;
    try {
      const { answer } = await pool.query(request, settings.timeoutMs, signal);
      result = { ok: true, value: decode(answer) };
    } catch (cause) {
      result = { ok: false, error: classify(name, cause, query, request.kind) };
    }
    observer.request(name, query, result.ok ? 'ok' : result.error.metricCode, (now() - started) / 1000);
    return result;
  };
}

/** The queue sizes of an older node: the masterchain block and every shard's top block, asked one block at a time. */
async function queuesPerBlock(call: LiteCall, name: string, limit: number, signal: AbortSignal | undefined): Promise<Result<QueueSizesAnswer, UpstreamError>> {
  const info = await call('queue_sizes', 'high', { kind: 'getMasterchainInfo' }, decodeMasterchainInfo, signal);
  if (!info.ok) return info;
  const shards = await call(
    'queue_sizes',
    'high',
    { kind: 'getAllShardsInfo', id: info.value.last },
    (a) => parseShardHashes(decodeAllShardsInfo(a).data),
    signal,
  );
  if (!shards.ok) return shards;
  const blocks = [info.value.last, ...shards.value];
  const sizes = await Promise.all(blocks.map((id) => call('queue_sizes', 'high', { kind: 'getBlockOutMsgQueueSize', id }, decodeBlockOutMsgQueueSize, signal)));
  const answered = [];
  for (const size of sizes) {
    if (!size.ok) return size;
    answered.push({ id: size.value.id, size: Number(size.value.size) });
  }
  return { ok: true, value: toAnswer(name, answered, limit) };
}

export function createLiteUpstream(deps: LiteUpstreamDeps): UpstreamCalls {
  const { settings, logger, now } = deps;
  const name = settings.name;
  const pool = createLitePool(
    settings.liteservers.map((l) => ({ host: l.host, port: l.port, publicKey: Buffer.from(l.publicKey, 'base64') })),
    now,
  );
  /** Whether the liteservers answer getOutMsgQueueSizes; learned from the first liteServer.error to it. */
  let perBlockQueues = false;
  let lastLimit = DEFAULT_EXT_MSG_QUEUE_SIZE_LIMIT;
  /** Each owner's jetton wallet by `master/owner`: a master's answer never changes. */
  const jettonWallets = new Map<string, string>();

  const call = liteCallOf(deps, pool);

  const masterchainInfo = (query: UpstreamQuery, priority: RequestPriority, signal: AbortSignal | undefined) =>
    call(query, priority, { kind: 'getMasterchainInfo' }, decodeMasterchainInfo, signal);

  return {
    name,
    async queueSizes(signal) {
      if (!perBlockQueues) {
        const sizes = await call('queue_sizes', 'high', { kind: 'getOutMsgQueueSizes' }, decodeOutMsgQueueSizes, signal);
        if (sizes.ok) {
          lastLimit = sizes.value.extMsgQueueSizeLimit;
          return { ok: true, value: toAnswer(name, sizes.value.shards, sizes.value.extMsgQueueSizeLimit) };
        }
        if (sizes.error.code !== 'liteserver_error') return sizes;
        perBlockQueues = true;
        logger.info(
          { upstream: name, err: sizes.error.message },
          'liteserver does not answer getOutMsgQueueSizes; asking getBlockOutMsgQueueSize per shard block from now on',
        );
      }
      return queuesPerBlock(call, name, lastLimit, signal);
    },
    walletStates: (addresses, priority, signal) => walletStatesOf(call, settings.liteservers.length, addresses, priority, signal),
    jettonWallets: (owners, master, page, signal, known) =>
      jettonWalletsOf(call, settings.liteservers.length, owners, master, page, { kept: jettonWallets, known }, signal),
    jettonMetadata: (master, signal) => jettonMetadataOf(call, master, signal),
    /** Its last masterchain seqno; a liteserver has no indexer. */
    async tip(signal) {
      const info = await masterchainInfo('lag_check', 'high', signal);
      if (!info.ok && info.error.code !== 'aborted') logger.debug({ code: info.error.code, err: info.error.message }, 'lag check: tip request failed');
      return { upstream: name, seqno: info.ok ? info.value.last.seqno : null, indexerSeqno: null };
    },
    ...liteChainCalls(call),
    close: () => pool.close(),
  };
}

/** What a failed lite API call was: the connection, the liteserver's own error, or an unreadable answer. */
function classify(name: string, cause: unknown, query: UpstreamQuery, method: string): UpstreamError {
  const details = { upstream: name, query, cause };
  if (cause instanceof LiteTransportError) return new UpstreamError(cause.failure, `${method}: ${cause.message}`, details);
  if (cause instanceof LiteServerError) {
    return new UpstreamError('liteserver_error', `${method}: liteServer.error ${cause.code}: ${cause.message}`, { ...details, liteserverCode: cause.code });
  }
  // Ours (TonParseError), or @ton/core's reading the cells: either way the answer is unreadable.
  const reason = cause instanceof TonParseError ? `${cause.code}: ${cause.message}` : cause instanceof Error ? cause.message : String(cause);
  return new UpstreamError('bad_body', `${method}: unreadable answer: ${reason}`, details);
}

/** Queue sizes in the order toncenter answers them: masterchain first, then shards by id. */
const toAnswer = (name: string, shards: readonly { id: LiteBlockId; size: number }[], limit: number): QueueSizesAnswer => ({
  shards: [...shards].sort(byWorkchainThenShard).map((s) => ({ id: blockIdOf(s.id), size: s.size })),
  ext_msg_queue_size_limit: limit,
  extra: `liteserver:${name}`,
});
