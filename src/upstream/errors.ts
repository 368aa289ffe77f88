import type { UpstreamErrorCode, UpstreamFailure } from '../domain/upstream.js';

/**
 * Upstream failures are values, not exceptions: every failed request becomes an
 * UpstreamError with a code from a closed set, the upstream and query it belongs to, and
 * the original cause.
 */
export class UpstreamError extends Error implements UpstreamFailure {
  override readonly name = 'UpstreamError';
  constructor(
    readonly code: UpstreamErrorCode,
    message: string,
    readonly details: UpstreamFailure['details'] & { readonly cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }

  /** Worth asking the same upstream again after a backoff. */
  get retryable(): boolean {
    return !['aborted', 'uri_too_long', 'not_found', 'unauthorized', 'unsupported'].includes(this.code);
  }

  /**
   * The `code` label of tonwatch_upstream_requests_total: the HTTP status, or the error
   * class; `liteserver_error_<code>` for a liteServer.error.
   */
  get metricCode(): string {
    if (this.code === 'liteserver_error') return `liteserver_error_${this.details.liteserverCode ?? 'unknown'}`;
    if (this.details.status !== undefined && this.code !== 'bad_body' && this.code !== 'upstream_error') {
      return String(this.details.status);
    }
    return this.code;
  }
}

export function classifyStatus(status: number): UpstreamErrorCode {
  if (status === 429) return 'rate_limited';
  if (status === 414 || status === 431) return 'uri_too_long';
  if (status === 404) return 'not_found';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status >= 500) return 'http_5xx';
  return 'http_4xx';
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** Classifies an exception thrown by the transport. */
export function classifyThrown(cause: unknown, timedOut: boolean, aborted: boolean): UpstreamErrorCode {
  if (aborted) return 'aborted';
  if (timedOut) return 'timeout';
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return 'timeout';
  if (cause instanceof Error && cause.name === 'TimeoutError') return 'timeout';
  return 'network';
}

/** Retry-After as seconds or an HTTP date → milliseconds from now; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | string[] | undefined, nowMs: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
