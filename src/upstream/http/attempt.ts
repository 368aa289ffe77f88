import type { ZodSafeParseResult } from 'zod';
import type { Result, UpstreamQuery } from '../../domain/upstream.js';
import type { RequestPriority } from '../budget.js';
import { classifyStatus, classifyThrown, parseRetryAfter, UpstreamError } from '../errors.js';
import type { UpstreamCallsDeps } from '../calls.js';
import type { HttpUpstreamSettings } from './settings.js';
import { describeNonJson, isFailureEnvelope, readCapped, tryParseJson } from './response-body.js';
import { errorMessageOf } from './schemas.js';
import { requestUrl, urlScrubber } from './urls.js';

/** No answer we expect comes near this; a bigger one is a broken or hostile upstream. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** One request to an HTTP upstream: where, its JSON body for a POST, and how its answer is read. */
export interface Attempt<T> {
  readonly query: UpstreamQuery;
  readonly priority: RequestPriority;
  readonly path: string;
  /** The query string without `?`, already encoded. */
  readonly search?: string;
  /** A zod schema, or a decoder that agrees with one (wallet-states.ts). */
  readonly schema: { safeParse(body: unknown): ZodSafeParseResult<T> };
  /** Sent as JSON in a POST; absent: a GET. */
  readonly body?: unknown;
}

export type AttemptOf = <T>(spec: Attempt<T>, signal: AbortSignal | undefined) => Promise<Result<T, UpstreamError>>;

export interface HttpUpstreamDeps extends UpstreamCallsDeps {
  readonly settings: HttpUpstreamSettings;
}

/** How an HTTP upstream makes its requests (createAttempt(deps)(spec, signal)). */
export function createAttempt(deps: HttpUpstreamDeps): AttemptOf {
  const { settings: upstream, budget, observer, now } = deps;
  // Every error message this upstream makes goes through it: an error page may echo its URL.
  const sending = { ...deps, scrub: urlScrubber(upstream.url) };

  /**
   * One request to one upstream, inside its budget, counted in tonwatch_upstream_requests_total
   * by HTTP status or error class (a request never sent, aborted while waiting for the
   * budget, is not counted).
   */
  return async function attempt<T>(spec: Attempt<T>, signal: AbortSignal | undefined): Promise<Result<T, UpstreamError>> {
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
      method: spec.body === undefined ? 'GET' : 'POST',
      signal: combined,
      ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
      headers: {
        accept: 'application/json',
        ...(spec.body === undefined ? {} : { 'content-type': 'application/json' }),
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
