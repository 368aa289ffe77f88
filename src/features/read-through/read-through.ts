import type { UnwatchedAnswer } from '../provisions.js';
import type { Logger } from 'pino';
import { createEpisodeLog } from '../../log/episodes.js';
import type { UpstreamClient } from '../../domain/upstream.js';
import type { WalletRecord } from '../../accounts/types.js';
import type { BatchSize } from '../../accounts/batches.js';
import { createClientQueues } from './client-queues.js';
import { createRecordCache } from './cache.js';
import { matchWalletAnswer } from '../../accounts/wallet-mapping.js';
import { MAX_ADDRESSES_PER_REQUEST } from '../../domain/wallet-state.js';

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

type Outcome = { readonly ok: true; readonly record: WalletRecord } | { readonly ok: false; readonly error: string };

interface Pending {
  readonly promise: Promise<Outcome>;
  readonly resolve: (outcome: Outcome) => void;
  /** The client whose share it counts against: the first that asked. */
  readonly client: string;
}

/**
 * The most pending addresses one client may hold while `otherClientsHolding` others hold
 * some: maxPendingAddresses less a reserve (one full request, at most a quarter), shared
 * equally. The reserve is room a client that comes next always finds.
 */
export function shareOf(maxPendingAddresses: number, otherClientsHolding: number): number {
  const reserve = Math.min(MAX_ADDRESSES_PER_REQUEST, Math.floor(maxPendingAddresses / 4));
  return Math.max(1, Math.floor((maxPendingAddresses - reserve) / (otherClientsHolding + 1)));
}

export function createReadThrough(deps: ReadThroughDeps): ReadThrough {
  const { now, logger } = deps;
  const cache = createRecordCache(() => deps.settings().ttlSeconds * 1000);
  const pending = new Map<string, Pending>();
  const queues = createClientQueues();
  let fetching = false;
  const abort = new AbortController();

  function settle(raw: string, outcome: Outcome): void {
    const waiting = pending.get(raw);
    pending.delete(raw);
    if (waiting !== undefined) queues.settled(waiting.client);
    if (outcome.ok) cache.set(raw, outcome.record);
    waiting?.resolve(outcome);
  }

  /** How many more addresses `client` may have pending now. */
  function room(client: string): number {
    const { maxPendingAddresses } = deps.settings();
    const held = queues.held(client);
    const others = queues.holders() - (held > 0 ? 1 : 0);
    return Math.min(maxPendingAddresses - pending.size, shareOf(maxPendingAddresses, others) - held);
  }

  const refusal = (addresses: number): ReadThroughAnswer => {
    deps.count('refused', addresses);
    const limit = deps.settings().maxPendingAddresses;
    return {
      ok: false,
      status: 503,
      error: `too many addresses waiting for the upstream (readThrough.maxPendingAddresses ${limit}, shared between clients); retry shortly`,
      retryAfterSeconds: 1,
    };
  };

  // A dead upstream under a storm fails a batch every few hundred ms: one line per episode.
  const episodes = createEpisodeLog(logger, deps.now);

  /** Fetches queued addresses one batch at a time until every queue is empty. */
  async function drain(): Promise<void> {
    if (fetching) return;
    fetching = true;
    try {
      while (queues.size > 0 && !abort.signal.aborted) {
        const batchSize = deps.batchSize();
        const batch = queues.take(batchSize.get());
        const result = await deps.client().fetchWalletStates(batch, abort.signal, 'read_through');
        if (!result.ok) {
          if (result.error.code === 'uri_too_long') {
            // The same search as the wallet poll's: a smaller batch, the addresses back in front.
            batchSize.refused(batch.length);
            for (const raw of batch) queues.putBack(raw, pending.get(raw)?.client ?? '');
            continue;
          }
          const context = { upstream: result.error.details.upstream, code: result.error.code, addresses: batch.length };
          episodes.failed('read_through', context, 'read-through batches failing');
          for (const raw of batch) settle(raw, { ok: false, error: `${result.error.code}: ${result.error.message}` });
          continue;
        }
        batchSize.accepted(batch.length);
        episodes.ok('read_through', { upstream: result.value.upstream }, 'read-through batches answered again');
        const { found, missing } = matchWalletAnswer(batch, result.value.value, { fetchedAt: result.value.fetchedAt, upstream: result.value.upstream });
        deps.count('fetched', found.size);
        deps.count('unknown', missing.length);
        for (const [raw, record] of found) settle(raw, { ok: true, record });
        for (const raw of missing) {
          settle(raw, {
            ok: true,
            record: { raw, state: null, addressBook: null, metadata: undefined, fetchedAt: result.value.fetchedAt, upstream: result.value.upstream },
          });
        }
      }
    } catch (err) {
      logger.error({ err }, 'read-through failed');
      for (const raw of queues.takeAll()) settle(raw, { ok: false, error: 'internal error' });
    } finally {
      fetching = false;
    }
  }

  return {
    admits: (client) => room(client) > 0,
    refusal,
    lookup(raws, client = '') {
      const at = now();
      cache.sweep(at);
      const records = new Map<string, WalletRecord>();
      const waits: Promise<Outcome>[] = [];
      /** The raw key each of `waits` is for. */
      const waitingFor: string[] = [];
      const missing: string[] = [];
      let hits = 0;
      let coalesced = 0;
      for (const raw of raws) {
        const cached = cache.get(raw, at);
        if (cached !== undefined) {
          records.set(raw, cached);
          hits += 1;
          continue;
        }
        const inFlight = pending.get(raw);
        if (inFlight !== undefined) {
          waits.push(inFlight.promise);
          waitingFor.push(raw);
          coalesced += 1;
        } else missing.push(raw);
      }
      if (missing.length > room(client)) return refusal(raws.length);
      deps.count('hit', hits);
      deps.count('coalesced', coalesced);
      for (const raw of missing) {
        let resolve!: (outcome: Outcome) => void;
        const promise = new Promise<Outcome>((r) => (resolve = r));
        pending.set(raw, { promise, resolve, client });
        queues.add(raw, client);
        waits.push(promise);
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
      queues.takeAll();
      for (const raw of [...pending.keys()]) settle(raw, { ok: false, error: 'shutting down' });
      cache.clear();
    },
  };
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
