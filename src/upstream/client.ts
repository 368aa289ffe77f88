import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { RetryPolicy, UpstreamSettings } from '../domain/config.js';
import type { QueryName } from '../domain/queries.js';
import type { JettonWalletsAnswer } from '../domain/jettons.js';
import type { Fetched, QueueSizesAnswer, Result, UpstreamClient, UpstreamObserver, WalletStatesAnswer } from '../domain/upstream.js';
import { createRequestBudget, type RequestBudget } from './budget.js';
import type { UpstreamCalls } from './calls.js';
import { UpstreamError } from './errors.js';
import { kindOf } from './kinds.js';

/**
 * The upstream client the pollers call: each query goes to the upstreams in failover
 * order, whatever their kind, in rounds with backoff. What one upstream does for a query is
 * its kind's (http-upstream.ts, liteserver/upstream.ts).
 */

export interface UpstreamClientDeps {
  readonly upstreams: readonly UpstreamSettings[];
  readonly retry: RetryPolicy;
  readonly logger: Logger;
  readonly observer: UpstreamObserver;
  /** The process clock (domain/clock.ts): budgets and back-off. */
  readonly now: () => number;
  /** The wall clock, for an upstream's Retry-After given as an HTTP date; default `now`. */
  readonly wall?: () => number;
  readonly userAgent: string;
  /** Tests pass a MockAgent or a pool bound to the simulator. */
  readonly dispatcher?: Dispatcher | undefined;
  /** Jitter source, [0, 1). */
  readonly random?: () => number;
  /**
   * Why an upstream is to be passed over for a query (the lag check found it behind), or
   * null. Asked before each request; the last upstream left is never passed over.
   */
  readonly lagging?: (upstream: string, query: QueryName) => 'lagging' | 'indexer_lagging' | null;
  /** How far behind an upstream is for a query, blocks: lagging upstreams are asked least lag first. */
  readonly lagBlocks?: (upstream: string, query: QueryName) => number;
  /** An upstream's budget shared with other replicas (cluster/budget.ts); undefined: a budget of the process's own. */
  readonly budgetFor?: ((upstream: UpstreamSettings) => RequestBudget | undefined) | undefined;
}

/** Each upstream's calls, made on first use by its kind's module (upstream/kinds.ts), with its budget. */
function upstreamCallsOf(deps: UpstreamClientDeps): { callsOf: (upstream: UpstreamSettings) => Promise<UpstreamCalls>; close: () => void } {
  const { logger, observer, now } = deps;
  const upstreamCalls = new Map<string, Promise<UpstreamCalls>>();
  return {
    callsOf(upstream) {
      let calls = upstreamCalls.get(upstream.name);
      if (calls === undefined) {
        const budget = deps.budgetFor?.(upstream) ?? createRequestBudget({ rps: upstream.rps, now });
        const shared = { budget, observer, logger, now, wall: deps.wall ?? now, userAgent: deps.userAgent, dispatcher: deps.dispatcher };
        calls = kindOf(upstream).create(upstream, shared);
        upstreamCalls.set(upstream.name, calls);
      }
      return calls;
    },
    close() {
      for (const calls of upstreamCalls.values()) void calls.then((c) => c.close());
      upstreamCalls.clear();
    },
  };
}

/**
 * The upstreams to ask for `query`: those the lag check did not find behind, in priority
 * order, then those it did (counted as skipped), least lag first.
 */
function usableFor(deps: UpstreamClientDeps, query: QueryName): { usable: readonly UpstreamSettings[]; lagging: readonly UpstreamSettings[] } {
  if (deps.lagging === undefined || deps.upstreams.length < 2) return { usable: deps.upstreams, lagging: [] };
  const usable: UpstreamSettings[] = [];
  const lagging: UpstreamSettings[] = [];
  for (const upstream of deps.upstreams) {
    const reason = deps.lagging(upstream.name, query);
    if (reason === null) usable.push(upstream);
    else {
      deps.observer.skipped(upstream.name, query, reason);
      lagging.push(upstream);
    }
  }
  const lagOf = (u: UpstreamSettings): number => deps.lagBlocks?.(u.name, query) ?? 0;
  return { usable, lagging: lagging.sort((a, b) => lagOf(a) - lagOf(b)) };
}

export function createUpstreamClient(deps: UpstreamClientDeps): UpstreamClient {
  const { logger, now } = deps;
  const random = deps.random ?? Math.random;

  const { callsOf, close } = upstreamCallsOf(deps);

  /**
   * Rounds of failover: each round asks every upstream in priority order; between rounds,
   * exponential backoff with full jitter, never shorter than a Retry-After we were given.
   */
  async function withFailover<T>(
    query: QueryName,
    signal: AbortSignal | undefined,
    once: (u: UpstreamSettings) => Promise<Result<T, UpstreamError>>,
  ): Promise<Result<Fetched<T>, UpstreamError>> {
    let lastError: UpstreamError | undefined;
    for (let round = 0; round < deps.retry.attempts; round += 1) {
      let retryAfterMs = 0;
      let anyRetryable = false;
      const { usable, lagging } = usableFor(deps, query);
      // The lagging ones only once every upstream within maxLagBlocks failed: older data rather than none.
      for (const upstream of [...usable, ...lagging]) {
        const result = await once(upstream);
        if (result.ok) return { ok: true, value: { value: result.value, upstream: upstream.name, fetchedAt: now() } };
        lastError = result.error;
        logger.debug({ upstream: upstream.name, query, code: result.error.code, round, err: result.error.message }, 'upstream request failed');
        if (result.error.code === 'aborted' || result.error.code === 'uri_too_long') return result;
        anyRetryable ||= result.error.retryable;
        retryAfterMs = Math.max(retryAfterMs, result.error.details.retryAfterMs ?? 0);
      }
      if (!anyRetryable || round === deps.retry.attempts - 1) break;
      const backoff = random() * deps.retry.baseDelayMs * 2 ** round;
      const delay = Math.min(deps.retry.maxDelayMs, Math.max(backoff, retryAfterMs));
      if (!(await sleep(delay, signal))) {
        return { ok: false, error: new UpstreamError('aborted', 'aborted during backoff', { upstream: lastError?.details.upstream ?? '', query }) };
      }
    }
    return { ok: false, error: lastError ?? new UpstreamError('network', 'no upstream configured', { upstream: '', query }) };
  }

  const client: UpstreamClient = {
    fetchTips(signal) {
      return Promise.all(deps.upstreams.map(async (upstream) => (await callsOf(upstream)).tip(signal)));
    },
    fetchQueueSizes(signal): Promise<Result<Fetched<QueueSizesAnswer>>> {
      return withFailover('queue_sizes', signal, async (u) => (await callsOf(u)).queueSizes(signal));
    },
    fetchWalletStates(addresses, signal, purpose = 'poll'): Promise<Result<Fetched<WalletStatesAnswer>>> {
      const priority = purpose === 'poll' ? 'low' : 'read';
      return withFailover('wallets', signal, async (u) => (await callsOf(u)).walletStates(addresses, priority, signal));
    },
    fetchJettonWallets(owners, master, page, signal, known): Promise<Result<Fetched<JettonWalletsAnswer>>> {
      return withFailover('jetton_wallets', signal, async (u) => (await callsOf(u)).jettonWallets(owners, master, page, signal, known));
    },
    fetchJettonMetadata(master, signal) {
      return withFailover('jetton_wallets', signal, async (u) => (await callsOf(u)).jettonMetadata(master, signal));
    },
    fetchChainHeads(signal) {
      return withFailover('chain_heads', signal, async (u) => (await callsOf(u)).chainHeads(signal));
    },
    fetchConfigParams(params, signal) {
      return withFailover('validators', signal, async (u) => (await callsOf(u)).configParams(params, signal));
    },
    runGetMethod(address, method, signal) {
      return withFailover('validators', signal, async (u) => (await callsOf(u)).getMethod(address, method, signal));
    },
    fetchValidatorStats(signal) {
      return withFailover('validators', signal, async (u) => (await callsOf(u)).validatorStats(signal));
    },
    close,
  };
  return client;
}

/** Resolves true after `ms`, or false at once when the signal aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve(false);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
