import type { UnwatchedAnswer } from '../provisions.js';
import type { Logger } from 'pino';
import { createEpisodeLog } from '../../log/episodes.js';
import type { Fetched, UpstreamClient, WalletStatesAnswer } from '../../domain/upstream.js';
import type { WalletRecord } from '../../accounts/types.js';
import type { BatchSize } from '../../accounts/batches.js';
import { createPendingAddresses, type Outcome, type PendingAddresses } from './pending.js';
import { createRecordCache } from './cache.js';
import { matchWalletAnswer } from '../../accounts/wallet-mapping.js';
import { ownString } from '../../domain/own-string.js';

/**
 * Read-through: wallet states for addresses that are not on the watchlist, fetched for the
 * clients that ask and kept for ttlSeconds.
 *
 * - Coalesced: an address asked by a thousand clients at once is one address in one batch.
 * - Fair: each client address has its own queue, and a batch takes from the queues in
 *   turn, so a client with a long backlog does not make the others wait behind it; a
 *   client may hold at most its share of maxPendingAddresses (shareOf).
 * - Budgeted: batches go through the upstream client as `read_through`, below the queue
 *   poll and below the wallet cycle (upstream/waiters.ts).
 * - Bounded: past maxPendingAddresses (queued and in flight), or past the client's share, a
 *   request is refused; a request waits at most timeoutMs, the batch it waited for still
 *   fills the cache.
 * - An account the upstream does not know is remembered as unknown (a record whose state is
 *   null) for the same ttl. A failed batch is not remembered: the next ask tries again.
 */

export type ReadThroughResult = 'hit' | 'fetched' | 'coalesced' | 'unknown' | 'refused';

export interface ReadThroughLimits {
  readonly ttlSeconds: number;
  readonly maxPendingAddresses: number;
  /** How long a request waits for its addresses, ms (its upstream's timeoutMs). */
  readonly timeoutMs: number;
}

export interface ReadThroughDeps {
  /** The client and batch size of the config in force. */
  readonly client: () => UpstreamClient;
  readonly batchSize: () => BatchSize;
  readonly settings: () => ReadThroughLimits;
  readonly now: () => number;
  readonly logger: Logger;
  /** Counts addresses by outcome (tonwatch_read_through_addresses_total). */
  readonly count: (result: ReadThroughResult, addresses: number) => void;
}

export type ReadThroughAnswer = UnwatchedAnswer;

export interface ReadThrough {
  /**
   * Records for these raw keys, asked by `client` (its address): at once when every one is
   * cached, else once fetched (or refused, failed, timed out).
   */
  lookup(raws: readonly string[], client?: string): ReadThroughAnswer | Promise<ReadThroughAnswer>;
  /** Whether `client` may have any address fetched now: false when it would be refused whatever it asks. */
  admits(client: string): boolean;
  /** The refusal of a client that is not admitted, counting `addresses` as refused. */
  refusal(addresses: number): ReadThroughAnswer;
  /** Addresses cached now (fresh or not yet swept). */
  readonly size: number;
  /** Drops the cache and fails the waiting requests (shutdown). */
  close(): void;
}

/**
 * Fetches queued addresses one batch at a time until every queue is empty (one drain at a
 * time: a call while one runs returns at once).
 */
function createDrain(
  deps: ReadThroughDeps,
  pending: ReturnType<typeof createPendingAddresses>,
  settle: (raw: string, outcome: Outcome) => void,
  signal: AbortSignal,
): () => Promise<void> {
  let fetching = false;
  // A dead upstream under a storm fails a batch every few hundred ms: one line per episode.
  const episodes = createEpisodeLog(deps.logger, deps.now);
  /** One batch of queued addresses fetched and settled, or put back as a smaller batch on a 414. */
  async function fetchBatch(): Promise<void> {
    const batchSize = deps.batchSize();
    const batch = pending.take(batchSize.get());
    const result = await deps.client().fetchWalletStates(batch, signal, 'read_through');
    if (result.ok) {
      batchSize.accepted(batch.length);
      episodes.ok('read_through', { upstream: result.value.upstream }, 'read-through batches answered again');
      settleAnswered(batch, result.value, settle, deps.count);
    } else if (result.error.code === 'uri_too_long') {
      // The same search as the wallet poll's: a smaller batch, the addresses back in front.
      batchSize.refused(batch.length);
      pending.putBack(batch);
    } else {
      const context = { upstream: result.error.details.upstream, code: result.error.code, addresses: batch.length };
      episodes.failed('read_through', context, 'read-through batches failing');
      for (const raw of batch) settle(raw, { ok: false, error: `${result.error.code}: ${result.error.message}` });
    }
  }

  /** Fetches queued addresses one batch at a time until every queue is empty. */
  async function drain(): Promise<void> {
    if (fetching) return;
    fetching = true;
    try {
      while (pending.queued > 0 && !signal.aborted) await fetchBatch();
    } catch (err) {
      deps.logger.error({ err }, 'read-through failed');
      pending.failAll('internal error');
    } finally {
      fetching = false;
    }
  }
  return drain;
}

export function createReadThrough(deps: ReadThroughDeps): ReadThrough {
  const { now } = deps;
  const cache = createRecordCache(() => deps.settings().ttlSeconds * 1000);
  const pending = createPendingAddresses();
  const abort = new AbortController();

  const settle = (raw: string, outcome: Outcome): void => {
    if (outcome.ok) cache.set(raw, outcome.record);
    pending.settle(raw, outcome);
  };
  const room = (client: string): number => pending.room(client, deps.settings().maxPendingAddresses);

  const refusal = (addresses: number): ReadThroughAnswer => {
    deps.count('refused', addresses);
    return refused(deps.settings().maxPendingAddresses);
  };

  const drain = createDrain(deps, pending, settle, abort.signal);

  return {
    admits: (client) => room(client) > 0,
    refusal,
    lookup(raws, client = '') {
      const at = now();
      cache.sweep(at);
      const { records, waits, waitingFor, missing } = sortAddresses(raws, (raw) => cache.get(raw, at), pending);
      if (missing.length > room(client)) return refusal(raws.length);
      deps.count('hit', records.size);
      deps.count('coalesced', waits.length);
      for (const asked of missing) {
        // Kept as the cache's key and the record's address: not a view of the request's URL.
        const raw = ownString(asked);
        waits.push(pending.add(raw, client));
        waitingFor.push(raw);
      }
      if (waits.length === 0) return { ok: true, records };
      void drain();
      return waitFor(records, waitingFor, waits, deps.settings().timeoutMs);
    },
    get size() {
      return cache.size;
    },
    close() {
      abort.abort(new Error('read-through closed'));
      pending.failAll('shutting down');
      cache.clear();
    },
  };
}

/** The answer to a request refused for want of room: retried a second later. */
const refused = (maxPendingAddresses: number): ReadThroughAnswer => ({
  ok: false,
  status: 503,
  error: `too many addresses waiting for the upstream (readThrough.maxPendingAddresses ${maxPendingAddresses}, shared between clients); retry shortly`,
  retryAfterSeconds: 1,
});

/** A request's addresses: those cached (their records), those being fetched already (what they wait for), and those to fetch. */
function sortAddresses(
  raws: readonly string[],
  cached: (raw: string) => WalletRecord | undefined,
  pending: Pick<PendingAddresses, 'outcomeOf'>,
): { records: Map<string, WalletRecord>; waits: Promise<Outcome>[]; waitingFor: string[]; missing: string[] } {
  const records = new Map<string, WalletRecord>();
  const waits: Promise<Outcome>[] = [];
  /** The raw key each of `waits` is for. */
  const waitingFor: string[] = [];
  const missing: string[] = [];
  for (const raw of raws) {
    const record = cached(raw);
    const inFlight = record === undefined ? pending.outcomeOf(raw) : undefined;
    if (record !== undefined) records.set(raw, record);
    else if (inFlight !== undefined) {
      waits.push(inFlight);
      waitingFor.push(raw);
    } else missing.push(raw);
  }
  return { records, waits, waitingFor, missing };
}

/** A batch's answer settled: a record for each address found, an unknown account (state null) for each left out. */
function settleAnswered(
  batch: readonly string[],
  answer: Fetched<WalletStatesAnswer>,
  settle: (raw: string, outcome: Outcome) => void,
  count: ReadThroughDeps['count'],
): void {
  const { fetchedAt, upstream } = answer;
  const { found, missing } = matchWalletAnswer(batch, answer.value, { fetchedAt, upstream });
  count('fetched', found.size);
  count('unknown', missing.length);
  for (const [raw, record] of found) settle(raw, { ok: true, record });
  for (const raw of missing) settle(raw, { ok: true, record: { raw, state: null, addressBook: null, metadata: undefined, fetchedAt, upstream } });
}

/** The request's answer once every address it waits for is settled, or a 504 after timeoutMs. */
async function waitFor(
  records: Map<string, WalletRecord>,
  waitingFor: readonly string[],
  waits: Promise<Outcome>[],
  timeoutMs: number,
): Promise<ReadThroughAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const outcome = await Promise.race([Promise.all(waits), timedOut]);
    if (outcome === 'timeout') {
      return {
        ok: false,
        status: 504,
        error: `the upstream did not answer for the unwatched addresses within ${timeoutMs} ms; retry shortly`,
        retryAfterSeconds: 1,
      };
    }
    for (const [i, settled] of outcome.entries()) {
      if (!settled.ok) return { ok: false, status: 503, error: `the upstream failed for the unwatched addresses (${settled.error})`, retryAfterSeconds: 1 };
      records.set(waitingFor[i] ?? settled.record.raw, settled.record);
    }
    return { ok: true, records };
  } finally {
    clearTimeout(timer);
  }
}
