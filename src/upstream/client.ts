import type { Logger } from 'pino';
import type { Dispatcher, request as undiciRequestFn } from 'undici';
import type { ZodSafeParseResult } from 'zod';
import type { HttpUpstreamSettings, LiteserverUpstreamSettings, RetryPolicy, UpstreamSettings } from '../domain/config.js';
import type { QueryName } from '../domain/queries.js';
import type {
  Fetched,
  QueueSizesAnswer,
  Result,
  UpstreamClient,
  UpstreamObserver,
  UpstreamQuery,
  UpstreamTip,
  WalletStatesAnswer,
} from '../domain/upstream.js';
import { createRequestBudget, type RequestBudget, type RequestPriority } from './budget.js';
import { classifyStatus, classifyThrown, parseRetryAfter, UpstreamError } from './errors.js';
import { describeNonJson, isFailureEnvelope, readCapped, tryParseJson } from './response-body.js';
import { errorMessageOf, indexerMasterchainInfoSchema, masterchainInfoEnvelopeSchema, outMsgQueueSizesEnvelopeSchema } from './schemas.js';
import { compactForm } from '../ton/address.js';
import { walletStatesDecoder } from './wallet-states.js';
import type { LiteUpstream } from './liteserver/upstream.js';

export interface UpstreamClientDeps {
  readonly upstreams: readonly UpstreamSettings[];
  readonly retry: RetryPolicy;
  readonly logger: Logger;
  readonly observer: UpstreamObserver;
  readonly now: () => number;
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
}

/**
 * undici is loaded on the first request, not at start: the daemon serves its persisted
 * snapshot before it polls, and loading undici is a fifth of start-up time.
 */
let undiciRequest: Promise<typeof undiciRequestFn> | undefined;
const loadRequest = (): Promise<typeof undiciRequestFn> => (undiciRequest ??= import('undici').then((m) => m.request));

/** Both spellings of the v2 path: the Python server answers the plural, the C++ server the singular. */
export const QUEUE_SIZES_PATHS = ['/api/v2/getOutMsgQueueSizes', '/api/v2/getOutMsgQueueSize'] as const;
const WALLET_STATES_PATH = '/api/v3/walletStates';
const MASTERCHAIN_INFO_PATH = '/api/v2/getMasterchainInfo';
const INDEXER_MASTERCHAIN_INFO_PATH = '/api/v3/masterchainInfo';
/** No answer we expect comes near this; a bigger one is a broken or hostile upstream. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

interface Attempt<T> {
  readonly query: UpstreamQuery;
  readonly priority: RequestPriority;
  readonly path: string;
  /** The query string without `?`, already encoded. */
  readonly search?: string;
  /** A zod schema, or a decoder that agrees with one (wallet-states.ts). */
  readonly schema: { safeParse(body: unknown): ZodSafeParseResult<T> };
}

export function createUpstreamClient(deps: UpstreamClientDeps): UpstreamClient {
  const { logger, observer, now } = deps;
  const random = deps.random ?? Math.random;
  const budgets = new Map<string, RequestBudget>(deps.upstreams.map((u) => [u.name, createRequestBudget({ rps: u.rps, now })]));
  /** Index into QUEUE_SIZES_PATHS that each upstream answers, learned from 404s. */
  const queuePathIndex = new Map<string, number>();

  /**
   * One request to one upstream, inside its budget, counted in tonwatch_upstream_requests_total
   * by HTTP status or error class (a request never sent, aborted while waiting for the
   * budget, is not counted).
   */
  async function attempt<T>(upstream: HttpUpstreamSettings, spec: Attempt<T>, signal: AbortSignal | undefined): Promise<Result<T, UpstreamError>> {
    try {
      await budgets.get(upstream.name)?.acquire(spec.priority, signal);
    } catch (cause) {
      return {
        ok: false,
        error: new UpstreamError('aborted', 'aborted while waiting for the request budget', { upstream: upstream.name, query: spec.query, cause }),
      };
    }
    const started = now();
    const sent = await send(upstream, spec, signal);
    observer.request(upstream.name, spec.query, sent.ok ? String(sent.status) : sent.error.metricCode, (now() - started) / 1000);
    return sent;
  }

  async function send<T>(
    upstream: HttpUpstreamSettings,
    spec: Attempt<T>,
    signal: AbortSignal | undefined,
  ): Promise<{ readonly ok: true; readonly value: T; readonly status: number } | { readonly ok: false; readonly error: UpstreamError }> {
    const fail = (
      code: ConstructorParameters<typeof UpstreamError>[0],
      message: string,
      extra: { status?: number; retryAfterMs?: number | undefined; cause?: unknown } = {},
    ) => ({ ok: false, error: new UpstreamError(code, message, { upstream: upstream.name, query: spec.query, ...extra }) }) as const;
    const url = new URL(upstream.url.replace(/\/+$/, '') + spec.path);
    if (spec.search !== undefined) url.search = spec.search;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${upstream.timeoutMs} ms`)), upstream.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    try {
      const request = await loadRequest();
      const response = await request(url, {
        method: 'GET',
        signal: combined,
        headers: {
          accept: 'application/json',
          'user-agent': deps.userAgent,
          // An empty key (`${KEY:-}` with KEY unset) means none.
          ...(upstream.apiKey ? { 'x-api-key': upstream.apiKey } : {}),
        },
        headersTimeout: upstream.timeoutMs,
        bodyTimeout: upstream.timeoutMs,
        ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}),
      });
      const text = await readCapped(response.body, MAX_BODY_BYTES);
      const status = response.statusCode;
      const json = tryParseJson(text);
      if (status < 200 || status >= 300) {
        const retryAfterMs = parseRetryAfter(response.headers['retry-after'], now());
        const errorClass = classifyStatus(status);
        if (errorClass === 'rate_limited') budgets.get(upstream.name)?.holdUntil(now() + (retryAfterMs ?? 1000));
        const message = (json.ok ? errorMessageOf(json.value) : undefined) ?? describeNonJson(text);
        return fail(errorClass, `HTTP ${status}: ${message}`, { status, retryAfterMs });
      }
      if (!json.ok) return fail('bad_body', `HTTP ${status} with a body that is not JSON: ${describeNonJson(text)}`, { status, cause: json.cause });
      if (isFailureEnvelope(json.value)) return fail('upstream_error', `ok=false: ${errorMessageOf(json.value) ?? 'no message'}`, { status });
      const parsed = spec.schema.safeParse(json.value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return fail('bad_body', `body violates the schema at ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? '?'}`, { status, cause: parsed.error });
      }
      return { ok: true, value: parsed.data, status };
    } catch (cause) {
      return fail(classifyThrown(cause, timeout.signal.aborted, signal?.aborted === true), cause instanceof Error ? cause.message : String(cause), { cause });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A liteserver upstream's calls; its module (and @ton/core with it) is loaded on first use,
   * not at start, like undici.
   */
  const liteUpstreams = new Map<string, Promise<LiteUpstream>>();
  const liteUpstream = (upstream: LiteserverUpstreamSettings): Promise<LiteUpstream> => {
    let lite = liteUpstreams.get(upstream.name);
    if (lite === undefined) {
      const budget = budgets.get(upstream.name) ?? createRequestBudget({ rps: upstream.rps, now });
      lite = import('./liteserver/upstream.js').then((m) =>
        m.createLiteUpstream({ settings: upstream, budget, observer, logger: logger.child({ upstream: upstream.name }), now }),
      );
      liteUpstreams.set(upstream.name, lite);
    }
    return lite;
  };

  /** The queue sizes from one upstream, whatever its kind. */
  async function queueSizesFrom(upstream: UpstreamSettings, signal: AbortSignal | undefined): Promise<Result<QueueSizesAnswer, UpstreamError>> {
    if (upstream.kind === 'liteserver') return (await liteUpstream(upstream)).queueSizes(signal);
    const result = await attemptQueueSizes(upstream, signal);
    if (!result.ok) return result;
    const { result: body, '@extra': topExtra } = result.value;
    return { ok: true, value: { ...body, extra: body['@extra'] ?? topExtra } };
  }

  /** The v2 query against one HTTP upstream: on a 404, try the other path spelling and remember it. */
  async function attemptQueueSizes(upstream: HttpUpstreamSettings, signal: AbortSignal | undefined) {
    const preferred = queuePathIndex.get(upstream.name) ?? 0;
    const spec = { query: 'queue_sizes', priority: 'high', schema: outMsgQueueSizesEnvelopeSchema } as const;
    const first = await attempt(upstream, { ...spec, path: QUEUE_SIZES_PATHS[preferred] ?? QUEUE_SIZES_PATHS[0] }, signal);
    if (first.ok || first.error.code !== 'not_found') return first;
    const other = 1 - preferred;
    const second = await attempt(upstream, { ...spec, path: QUEUE_SIZES_PATHS[other] ?? QUEUE_SIZES_PATHS[0] }, signal);
    if (second.ok || second.error.code !== 'not_found') {
      queuePathIndex.set(upstream.name, other);
      logger.info({ upstream: upstream.name, path: QUEUE_SIZES_PATHS[other] }, 'upstream answers the other v2 path spelling; using it from now on');
    }
    return second;
  }

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
      const usable = usableFor(query);
      for (const upstream of usable) {
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

  /** The upstreams to ask for `query`, in order, without those the lag check found behind (counted as skipped). */
  function usableFor(query: QueryName): readonly UpstreamSettings[] {
    if (deps.lagging === undefined || deps.upstreams.length < 2) return deps.upstreams;
    const usable: UpstreamSettings[] = [];
    for (const upstream of deps.upstreams) {
      const reason = deps.lagging(upstream.name, query);
      if (reason === null) usable.push(upstream);
      else observer.skipped(upstream.name, query, reason);
    }
    return usable.length > 0 ? usable : deps.upstreams;
  }

  /** One upstream's tip: its v2 masterchain seqno and its v3 indexer's, each asked once (a liteserver has no indexer). */
  async function tipOf(upstream: UpstreamSettings, signal: AbortSignal | undefined): Promise<UpstreamTip> {
    if (upstream.kind === 'liteserver') {
      const tip = await (await liteUpstream(upstream)).tip(signal);
      if (!tip.ok && tip.error.code !== 'aborted')
        logger.debug({ upstream: upstream.name, code: tip.error.code, err: tip.error.message }, 'lag check: tip request failed');
      return { upstream: upstream.name, seqno: tip.ok ? tip.value : null, indexerSeqno: null };
    }
    const spec = { query: 'lag_check', priority: 'high' } as const;
    const [v2, v3] = await Promise.all([
      attempt(upstream, { ...spec, path: MASTERCHAIN_INFO_PATH, schema: masterchainInfoEnvelopeSchema }, signal),
      attempt(upstream, { ...spec, path: INDEXER_MASTERCHAIN_INFO_PATH, schema: indexerMasterchainInfoSchema }, signal),
    ]);
    for (const failed of [v2, v3]) {
      if (!failed.ok && failed.error.code !== 'aborted') {
        logger.debug({ upstream: upstream.name, code: failed.error.code, err: failed.error.message }, 'lag check: tip request failed');
      }
    }
    return { upstream: upstream.name, seqno: v2.ok ? v2.value.result.last.seqno : null, indexerSeqno: v3.ok ? v3.value.last.seqno : null };
  }

  const client: UpstreamClient = {
    fetchTips(signal) {
      return Promise.all(deps.upstreams.map((upstream) => tipOf(upstream, signal)));
    },
    fetchQueueSizes(signal): Promise<Result<Fetched<QueueSizesAnswer>>> {
      return withFailover('queue_sizes', signal, (u) => queueSizesFrom(u, signal));
    },
    fetchWalletStates(addresses, signal, purpose = 'poll'): Promise<Result<Fetched<WalletStatesAnswer>>> {
      // The shortest accepted forms, comma-separated: 49 bytes an address, none escaped, so
      // the most addresses fit behind a proxy's request-line limit (nginx: 8 KiB).
      const search = `address=${addresses.map(compactForm).join(',')}`;
      const priority = purpose === 'poll' ? 'low' : 'read';
      return withFailover('wallets', signal, async (u) =>
        u.kind === 'liteserver'
          ? (await liteUpstream(u)).walletStates(addresses, priority, signal)
          : attempt(u, { query: 'wallets', priority, path: WALLET_STATES_PATH, search, schema: walletStatesDecoder }, signal),
      );
    },
    close() {
      for (const lite of liteUpstreams.values()) void lite.then((l) => l.close());
      liteUpstreams.clear();
    },
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
