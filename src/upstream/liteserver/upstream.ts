import { TonParseError } from '../../ton/errors.js';
import { Cell } from '@ton/core';
import type { LiteserverUpstreamSettings } from '../../domain/config.js';
import type { QueueSizesAnswer, Result, UpstreamQuery, WalletStatesAnswer } from '../../domain/upstream.js';
import type { ServedWalletState } from '../../domain/wallet-state.js';
import {
  LiteServerError,
  decodeAllShardsInfo,
  decodeBlockOutMsgQueueSize,
  decodeMasterchainInfo,
  decodeOutMsgQueueSizes,
  type LiteBlockId,
  type LiteRequest,
  decodeAccountState,
} from '../../ton/lite-api.js';
import { parseShardHashes } from '../../ton/shard-hashes.js';
import { lookupShardAccount } from '../../ton/shard-accounts.js';
import { unsignedShardToSigned } from '../../ton/shard.js';
import { walletStateOfAccount } from '../../ton/wallet-account.js';
import type { RequestPriority } from '../budget.js';
import type { UpstreamCalls, UpstreamCallsDeps } from '../calls.js';
import { UpstreamError } from '../errors.js';
import { LiteTransportError } from './connection.js';
import { createLitePool } from './pool.js';

/**
 * A `kind: liteserver` upstream: the two polls and the tip, each as a sequence of lite API
 * calls inside the upstream's budget, every call counted in tonwatch_upstream_requests_total
 * (`ok`, or the failure's code). What comes back has the same shape as from HTTP.
 */

/** ext_msg_queue_size_limit when the per-block path is all a liteserver offers: the collator's constant. */
export const DEFAULT_EXT_MSG_QUEUE_SIZE_LIMIT = 8000;
/** getAccountState calls in flight at once per liteserver of the upstream. */
const ACCOUNTS_IN_FLIGHT_PER_SERVER = 4;

export type LiteUpstreamDeps = UpstreamCallsDeps<LiteserverUpstreamSettings>;

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

export function createLiteUpstream(deps: LiteUpstreamDeps): UpstreamCalls {
  const { settings, budget, observer, logger, now } = deps;
  const name = settings.name;
  const pool = createLitePool(
    settings.liteservers.map((l) => ({ host: l.host, port: l.port, publicKey: Buffer.from(l.publicKey, 'base64') })),
    now,
  );
  /** Whether the liteservers answer getOutMsgQueueSizes; learned from the first liteServer.error to it. */
  let perBlockQueues = false;
  let lastLimit = DEFAULT_EXT_MSG_QUEUE_SIZE_LIMIT;

  /** One lite API call inside the budget, decoded; counted whether it worked or not (not when aborted before it was sent). */
  async function call<T>(
    query: UpstreamQuery,
    priority: RequestPriority,
    request: LiteRequest,
    decode: (answer: Buffer) => T,
    signal: AbortSignal | undefined,
  ): Promise<Result<T, UpstreamError>> {
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
  }

  const masterchainInfo = (query: UpstreamQuery, priority: RequestPriority, signal: AbortSignal | undefined) =>
    call(query, priority, { kind: 'getMasterchainInfo' }, decodeMasterchainInfo, signal);

  async function queuesPerBlock(signal: AbortSignal | undefined): Promise<Result<QueueSizesAnswer, UpstreamError>> {
    const info = await masterchainInfo('queue_sizes', 'high', signal);
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
    const sizes = await Promise.all(
      blocks.map((id) => call('queue_sizes', 'high', { kind: 'getBlockOutMsgQueueSize', id }, decodeBlockOutMsgQueueSize, signal)),
    );
    const answered = [];
    for (const size of sizes) {
      if (!size.ok) return size;
      answered.push({ id: size.value.id, size: Number(size.value.size) });
    }
    return { ok: true, value: toAnswer(name, answered, lastLimit) };
  }

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
      return queuesPerBlock(signal);
    },
    walletStates: (addresses, priority, signal) => walletStatesOf(call, settings.liteservers.length, addresses, priority, signal),
    // Jetton balances need two get-methods run on the liteserver (runSmcMethod); not built yet: the next upstream is asked.
    jettonWallets: () =>
      Promise.resolve({
        ok: false,
        error: new UpstreamError('unsupported', 'jetton balances are not read from liteservers yet; an HTTP (toncenter v3) upstream is needed', {
          upstream: name,
          query: 'jetton_wallets',
        }),
      }),
    /** Its last masterchain seqno; a liteserver has no indexer. */
    async tip(signal) {
      const info = await masterchainInfo('lag_check', 'high', signal);
      if (!info.ok && info.error.code !== 'aborted') logger.debug({ code: info.error.code, err: info.error.message }, 'lag check: tip request failed');
      return { upstream: name, seqno: info.ok ? info.value.last.seqno : null, indexerSeqno: null };
    },
    close: () => pool.close(),
    // This module and @ton/core were loaded when these calls were made.
    prepare: () => Promise.resolve(),
  };
}

/** One getAccountState answer as a walletStates row; null when the account does not exist. Throws on an unreadable answer. */
function accountRow(raw: string, answer: Buffer): ServedWalletState | null {
  const decoded = decodeAccountState(answer);
  const account = decoded.state.length === 0 ? undefined : Cell.fromBoc(decoded.state)[0];
  if (account === undefined) return null;
  // Two roots: the shard block's proof, then the shard state's, which holds the ShardAccount.
  const stateProof = Cell.fromBoc(decoded.proof)[1];
  if (stateProof === undefined) throw new Error('the proof has no second root (the shard state)');
  const hash = Buffer.from(raw.slice(raw.indexOf(':') + 1), 'hex');
  const shardAccount = lookupShardAccount(stateProof, hash);
  const row = walletStateOfAccount(raw, account, shardAccount);
  if (row !== null && shardAccount === null) throw new Error('the account exists but the state proof does not hold it');
  return row;
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

/** One lite API call inside the budget, decoded (createLiteUpstream's `call`). */
type LiteCall = <T>(
  query: UpstreamQuery,
  priority: RequestPriority,
  request: LiteRequest,
  decode: (answer: Buffer) => T,
  signal: AbortSignal | undefined,
) => Promise<Result<T, UpstreamError>>;

/**
 * The states of `addresses` at the last masterchain block, `servers` liteservers' worth of
 * getAccountState calls in flight; the first failure stops the rest.
 */
async function walletStatesOf(
  call: LiteCall,
  servers: number,
  addresses: readonly string[],
  priority: RequestPriority,
  signal: AbortSignal | undefined,
): Promise<Result<WalletStatesAnswer, UpstreamError>> {
  const info = await call('wallets', priority, { kind: 'getMasterchainInfo' }, decodeMasterchainInfo, signal);
  if (!info.ok) return info;
  const block = info.value.last;
  const wallets: ServedWalletState[] = [];
  let failure: UpstreamError | undefined;
  // The first failure stops the rest: the batch is answered whole or not at all, and
  // failover asks the next upstream for all of it.
  const stop = new AbortController();
  const combined = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < addresses.length) {
      const raw = addresses[next] as string;
      next += 1;
      const [workchain, hex] = raw.split(':') as [string, string];
      const request: LiteRequest = { kind: 'getAccountState', id: block, workchain: Number(workchain), account: Buffer.from(hex, 'hex') };
      const decode = (answer: Buffer) => accountRow(raw, answer);
      let result = await call('wallets', priority, request, decode, combined);
      // One more try, on the next liteserver in turn, before the batch fails.
      if (!result.ok && result.error.retryable && failure === undefined) result = await call('wallets', priority, request, decode, combined);
      if (!result.ok) {
        if (failure === undefined && !(result.error.code === 'aborted' && signal?.aborted !== true)) failure = result.error;
        stop.abort();
        return;
      }
      if (result.value !== null) wallets.push(result.value);
    }
  };
  const inFlight = Math.max(1, Math.min(addresses.length, servers * ACCOUNTS_IN_FLIGHT_PER_SERVER));
  await Promise.all(Array.from({ length: inFlight }, worker));
  if (failure !== undefined) return { ok: false, error: failure };
  return { ok: true, value: { wallets, address_book: {}, metadata: {} } };
}
