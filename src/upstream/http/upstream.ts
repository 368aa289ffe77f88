import type { ZodSafeParseResult } from 'zod';
import type { HttpUpstreamSettings } from './settings.js';
import { JETTON_WALLETS_API_PATH } from '../../domain/jettons.js';
import type { Result, UpstreamQuery } from '../../domain/upstream.js';
import { compactForm } from '../../ton/address.js';
import type { RequestPriority } from '../budget.js';
import type { UpstreamCalls, UpstreamCallsDeps } from '../calls.js';
import { classifyStatus, classifyThrown, parseRetryAfter, UpstreamError } from '../errors.js';
import { describeNonJson, isFailureEnvelope, readCapped, tryParseJson } from './response-body.js';
import {
  errorMessageOf,
  indexerMasterchainInfoSchema,
  jettonMastersResponseSchema,
  jettonWalletsResponseSchema,
  masterchainInfoEnvelopeSchema,
  outMsgQueueSizesEnvelopeSchema,
} from './schemas.js';
import { walletStatesDecoder } from './wallet-states.js';
import { requestUrl, urlScrubber, WALLET_STATES_PATH } from './urls.js';

/**
 * A `kind: http` upstream: toncenter's HTTP API through undici, one request per call inside
 * the upstream's budget, each counted in tonwatch_upstream_requests_total by HTTP status or
 * error class.
 */

/** Both spellings of the v2 path: the Python server answers the plural, the C++ server the singular. */
export const QUEUE_SIZES_PATHS = ['/api/v2/getOutMsgQueueSizes', '/api/v2/getOutMsgQueueSize'] as const;
const JETTON_WALLETS_PATH = JETTON_WALLETS_API_PATH;
const JETTON_MASTERS_PATH = '/api/v3/jetton/masters';
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

export interface HttpUpstreamDeps extends UpstreamCallsDeps {
  readonly settings: HttpUpstreamSettings;
}

export function createHttpUpstream(deps: HttpUpstreamDeps): UpstreamCalls {
  const { settings: upstream, budget, observer, logger, now } = deps;
  // Every error message this upstream makes goes through it: an error page may echo its URL.
  const sending = { ...deps, scrub: urlScrubber(upstream.url) };
  /** Index into QUEUE_SIZES_PATHS that this upstream answers, learned from 404s. */
  let queuePathIndex = 0;

  /**
   * One request to one upstream, inside its budget, counted in tonwatch_upstream_requests_total
   * by HTTP status or error class (a request never sent, aborted while waiting for the
   * budget, is not counted).
   */
  async function attempt<T>(spec: Attempt<T>, signal: AbortSignal | undefined): Promise<Result<T, UpstreamError>> {
    try {
      await budget.acquire(spec.priority, signal);
    } catch (cause) {
      return {
        ok: false,
        error: new UpstreamError('aborted', 'aborted while waiting for the request budget', { upstream: upstream.name, query: spec.query, cause }),
      };
    }
    const started = now();
    const sent = await send(sending, spec, signal);
    observer.request(upstream.name, spec.query, sent.ok ? String(sent.status) : sent.error.metricCode, (now() - started) / 1000);
    return sent;
  }

  /** The v2 query: on a 404, try the other path spelling and remember it. */
  async function attemptQueueSizes(signal: AbortSignal | undefined) {
    const preferred = queuePathIndex;
    const spec = { query: 'queue_sizes', priority: 'high', schema: outMsgQueueSizesEnvelopeSchema } as const;
    const first = await attempt({ ...spec, path: QUEUE_SIZES_PATHS[preferred] ?? QUEUE_SIZES_PATHS[0] }, signal);
    if (first.ok || first.error.code !== 'not_found') return first;
    const other = 1 - preferred;
    const second = await attempt({ ...spec, path: QUEUE_SIZES_PATHS[other] ?? QUEUE_SIZES_PATHS[0] }, signal);
    if (second.ok || second.error.code !== 'not_found') {
      queuePathIndex = other;
      logger.info({ upstream: upstream.name, path: QUEUE_SIZES_PATHS[other] }, 'upstream answers the other v2 path spelling; using it from now on');
    }
    return second;
  }

  return {
    name: upstream.name,
    async queueSizes(signal) {
      const result = await attemptQueueSizes(signal);
      if (!result.ok) return result;
      const { result: body, '@extra': topExtra } = result.value;
      return { ok: true, value: { ...body, extra: body['@extra'] ?? topExtra } };
    },
    walletStates(addresses, priority, signal) {
      // The shortest accepted forms, comma-separated: 49 bytes an address, none escaped, so
      // the most addresses fit behind a proxy's request-line limit (nginx: 8 KiB).
      const search = `address=${addresses.map(compactForm).join(',')}`;
      return attempt({ query: 'wallets', priority, path: WALLET_STATES_PATH, search, schema: walletStatesDecoder }, signal);
    },
    jettonWallets(owners, master, page, signal) {
      const search = [
        `jetton_address=${compactForm(master)}`,
        `limit=${page.limit}`,
        `offset=${page.offset}`,
        ...owners.map((owner) => `owner_address=${compactForm(owner)}`),
      ].join('&');
      return attempt({ query: 'jetton_wallets', priority: 'jetton', path: JETTON_WALLETS_PATH, search, schema: jettonWalletsResponseSchema }, signal);
    },
    async jettonMetadata(master, signal) {
      const search = `address=${compactForm(master)}&limit=1`;
      const answer = await attempt(
        { query: 'jetton_wallets', priority: 'jetton', path: JETTON_MASTERS_PATH, search, schema: jettonMastersResponseSchema },
        signal,
      );
      if (!answer.ok) return answer;
      const found = answer.value.jetton_masters.find((m) => m.address === master);
      if (found !== undefined) return { ok: true, value: found.jetton_content ?? {} };
      return {
        ok: false,
        error: new UpstreamError('bad_body', `the indexer does not know the jetton master ${master}`, { upstream: upstream.name, query: 'jetton_wallets' }),
      };
    },
    /** Its v2 masterchain seqno and its v3 indexer's, each asked once. */
    async tip(signal) {
      const spec = { query: 'lag_check', priority: 'high' } as const;
      const [v2, v3] = await Promise.all([
        attempt({ ...spec, path: MASTERCHAIN_INFO_PATH, schema: masterchainInfoEnvelopeSchema }, signal),
        attempt({ ...spec, path: INDEXER_MASTERCHAIN_INFO_PATH, schema: indexerMasterchainInfoSchema }, signal),
      ]);
      for (const failed of [v2, v3]) {
        if (!failed.ok && failed.error.code !== 'aborted') {
          logger.debug({ upstream: upstream.name, code: failed.error.code, err: failed.error.message }, 'lag check: tip request failed');
        }
      }
      return { upstream: upstream.name, seqno: v2.ok ? v2.value.result.last.seqno : null, indexerSeqno: v3.ok ? v3.value.last.seqno : null };
    },
    close: () => undefined,
  };
}

/**
 * One HTTP request and what its answer means: the value its schema reads, or the error
 * class of its status, body or failure (a 429 also holds the upstream's budget).
 */
async function send<T>(
  deps: HttpUpstreamDeps & { readonly scrub: (text: string) => string },
  spec: Attempt<T>,
  signal: AbortSignal | undefined,
): Promise<{ readonly ok: true; readonly value: T; readonly status: number } | { readonly ok: false; readonly error: UpstreamError }> {
  const { settings: upstream, budget, now, wall, userAgent, dispatcher, scrub } = deps;
  const fail = (
    code: ConstructorParameters<typeof UpstreamError>[0],
    message: string,
    extra: { status?: number; retryAfterMs?: number | undefined; cause?: unknown } = {},
  ) => ({ ok: false, error: new UpstreamError(code, scrub(message), { upstream: upstream.name, query: spec.query, ...extra }) }) as const;
  const url = requestUrl(upstream.url, spec.path, spec.search);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${upstream.timeoutMs} ms`)), upstream.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
  try {
    // Loaded by the first request rather than at start (~120 ms of compiling): a start serves its persisted snapshot meanwhile.
    const { request } = await import('undici');
    const response = await request(url, {
      method: 'GET',
      signal: combined,
      headers: {
        accept: 'application/json',
        'user-agent': userAgent,
        // An empty key (`${KEY:-}` with KEY unset) means none.
        ...(upstream.apiKey ? { 'x-api-key': upstream.apiKey } : {}),
      },
      headersTimeout: upstream.timeoutMs,
      bodyTimeout: upstream.timeoutMs,
      ...(dispatcher ? { dispatcher } : {}),
    });
    const text = await readCapped(response.body, MAX_BODY_BYTES);
    const status = response.statusCode;
    const json = tryParseJson(text);
    if (status < 200 || status >= 300) {
      const retryAfterMs = parseRetryAfter(response.headers['retry-after'], wall());
      const errorClass = classifyStatus(status);
      if (errorClass === 'rate_limited') budget.holdUntil(now() + (retryAfterMs ?? 1000));
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
