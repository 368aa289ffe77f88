/** What a handler returns; the server writes it. Handlers are pure: (snapshot, request) → response. */
export interface ServedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A list of buffers is written in order: pre-encoded parts are sent without copying. */
  readonly body: string | Buffer | readonly Buffer[];
}

/** Body length in bytes. */
export function bodyLength(body: ServedResponse['body']): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (Buffer.isBuffer(body)) return body.length;
  return body.reduce((sum, part) => sum + part.length, 0);
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): ServedResponse {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: JSON.stringify(body) };
}

/**
 * Caching headers for data fetched at `fetchedAt`: Last-Modified, Age, and a max-age that
 * runs until the next poll is due (0 when no poll is scheduled, or it is overdue).
 * `lastModified` is the HTTP date of fetchedAt, formatted once per snapshot by the caller.
 */
export function snapshotHeaders(
  fetchedAt: number,
  now: number,
  nextPollDueAt: number | null,
  lastModified = new Date(fetchedAt).toUTCString(),
): Record<string, string> {
  const maxAge = nextPollDueAt === null ? 0 : Math.max(0, Math.ceil((nextPollDueAt - now) / 1000));
  return {
    'content-type': JSON_TYPE,
    'last-modified': lastModified,
    age: String(Math.max(0, Math.floor((now - fetchedAt) / 1000))),
    'cache-control': `max-age=${maxAge}`,
  };
}

/** Seconds a client should wait before asking again for data we do not have yet. */
export function retryAfterSeconds(now: number, nextPollDueAt: number | null): string {
  if (nextPollDueAt === null) return '5';
  return String(Math.max(1, Math.ceil((nextPollDueAt - now) / 1000)));
}
