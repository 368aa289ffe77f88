import type { ReadThroughAnswer as DomainReadThroughAnswer } from '../domain/read-through.js';
import type { Logger } from 'pino';
import { createEpisodeLog } from '../log/episodes.js';
import type { UpstreamClient } from '../domain/upstream.js';
import type { WalletRecord } from '../snapshot/types.js';
import type { BatchSize } from './batches.js';
import { matchWalletAnswer } from './wallet-mapping.js';

/**
 * Read-through: wallet states for addresses that are not on the watchlist, fetched for the
 * clients that ask and kept for ttlSeconds.
 *
 * - Coalesced: the addresses of all concurrent requests wait in one queue, in the order
 *   they came; one batch at a time takes as many as fit (the wallet poll's batch size): an
 *   address asked by a thousand clients at once is one address in one batch.
 * - Budgeted: batches go through the upstream client as `read_through`, below the queue
 *   poll and taking turns with the wallet cycle (upstream/budget.ts).
 * - Bounded: past maxPendingAddresses (queued and in flight) a request is refused; a
 *   request waits at most timeoutMs, the batch it waited for still fills the cache.
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

export type ReadThroughAnswer = DomainReadThroughAnswer<WalletRecord>;

export interface ReadThrough {
  /** Records for these raw keys: at once when every one is cached, else once fetched (or refused, failed, timed out). */
  lookup(raws: readonly string[]): ReadThroughAnswer | Promise<ReadThroughAnswer>;
  /** Addresses cached now (fresh or not yet swept). */
  readonly size: number;
  /** Drops the cache and fails the waiting requests (shutdown). */
  close(): void;
}

/** Entries cached at most; the oldest go first past it. */
export const MAX_CACHED_ADDRESSES = 200_000;
/** Expired entries are swept at most this often, ms. */
const SWEEP_EVERY_MS = 1000;

type Outcome = { readonly ok: true; readonly record: WalletRecord } | { readonly ok: false; readonly error: string };

interface Pending {
  readonly promise: Promise<Outcome>;
  readonly resolve: (outcome: Outcome) => void;
}

export function createReadThrough(deps: ReadThroughDeps): ReadThrough {
  const { now, logger } = deps;
  const cache = createRecordCache(() => deps.settings().ttlSeconds * 1000);
  const pending = new Map<string, Pending>();
  const queue: string[] = [];
  let fetching = false;
  const abort = new AbortController();

  function settle(raw: string, outcome: Outcome): void {
    const waiting = pending.get(raw);
    pending.delete(raw);
    if (outcome.ok) cache.set(raw, outcome.record);
    waiting?.resolve(outcome);
  }

  // A dead upstream under a storm fails a batch every few hundred ms: one line per episode.
  const episodes = createEpisodeLog(logger, deps.now);

  /** Fetches queued addresses one batch at a time until the queue is empty. */
  async function drain(): Promise<void> {
    if (fetching) return;
    fetching = true;
    try {
      while (queue.length > 0 && !abort.signal.aborted) {
        const batchSize = deps.batchSize();
        const batch = queue.splice(0, batchSize.get());
        const result = await deps.client().fetchWalletStates(batch, abort.signal, 'read_through');
        if (!result.ok) {
          if (result.error.code === 'uri_too_long') {
            // The same search as the wallet poll's: a smaller batch, the addresses back in front.
            batchSize.refused(batch.length);
            queue.unshift(...batch);
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
      for (const raw of queue.splice(0)) settle(raw, { ok: false, error: 'internal error' });
    } finally {
      fetching = false;
    }
  }

  return {
    lookup(raws) {
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
      const settings = deps.settings();
      if (missing.length > 0 && pending.size + missing.length > settings.maxPendingAddresses) {
        deps.count('refused', raws.length);
        return {
          ok: false,
          status: 503,
          error: `too many addresses waiting for the upstream (readThrough.maxPendingAddresses ${settings.maxPendingAddresses}); retry shortly`,
          retryAfterSeconds: 1,
        };
      }
      deps.count('hit', hits);
      deps.count('coalesced', coalesced);
      for (const raw of missing) {
        let resolve!: (outcome: Outcome) => void;
        const promise = new Promise<Outcome>((r) => (resolve = r));
        pending.set(raw, { promise, resolve });
        queue.push(raw);
        waits.push(promise);
        waitingFor.push(raw);
      }
      if (waits.length === 0) return { ok: true, records };
      void drain();
      return waitFor(records, waitingFor, waits, settings.timeoutMs);
    },
    get size() {
      return cache.size;
    },
    close() {
      abort.abort(new Error('read-through closed'));
      queue.splice(0);
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

/**
 * Records fetched for clients, oldest first, served while younger than the ttl; swept of
 * stale ones every SWEEP_EVERY_MS, and of the oldest past MAX_CACHED_ADDRESSES.
 */
function createRecordCache(ttlMs: () => number) {
  const records = new Map<string, WalletRecord>();
  let sweptAt = 0;
  const fresh = (record: WalletRecord, at: number): boolean => at < record.fetchedAt + ttlMs();
  return {
    get(raw: string, at: number): WalletRecord | undefined {
      const record = records.get(raw);
      return record !== undefined && fresh(record, at) ? record : undefined;
    },
    set(raw: string, record: WalletRecord): void {
      records.delete(raw); // re-inserted last: the map's order is age order
      records.set(raw, record);
    },
    sweep(at: number): void {
      if (at - sweptAt < SWEEP_EVERY_MS && records.size <= MAX_CACHED_ADDRESSES) return;
      sweptAt = at;
      for (const [raw, record] of records) if (!fresh(record, at)) records.delete(raw);
      for (const raw of records.keys()) {
        if (records.size <= MAX_CACHED_ADDRESSES) break;
        records.delete(raw);
      }
    },
    get size(): number {
      return records.size;
    },
    clear: (): void => records.clear(),
  };
}
