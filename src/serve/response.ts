/**
 * The largest POST body the v2 API reads (a JSON-RPC call; a getOutMsgQueueSizes POST).
 * toncenter's C++ server and nginx setups refuse bodies long before this; a call is a few
 * hundred bytes.
 */
export const MAX_JSON_RPC_BODY_BYTES = 64 * 1024;

/** What a handler returns; the server writes it. Handlers are pure: (snapshot, request) → response. */
export interface ServedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A list of buffers is written in order: pre-encoded parts are sent without copying. */
  readonly body: string | Buffer | readonly Buffer[] | StreamedBody;
}

/**
 * A body made as it is sent, with backpressure: the next part is asked for only once the
 * socket took the last one. Its length is known beforehand (it is sent with Content-Length).
 */
export interface StreamedBody {
  readonly length: number;
  stream(): AsyncIterable<Buffer>;
}

/** Body length in bytes. */
export function bodyLength(body: ServedResponse['body']): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (Buffer.isBuffer(body)) return body.length;
  if (isStreamed(body)) return body.length;
  return body.reduce((sum, part) => sum + part.length, 0);
}

export function isStreamed(body: ServedResponse['body']): body is StreamedBody {
  return typeof body === 'object' && 'stream' in body;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** On every answer (write-response.ts): error bodies may echo what a client sent, and are never to be sniffed as anything but their type. */
export const NOSNIFF = 'x-content-type-options';

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): ServedResponse {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: JSON.stringify(body) };
}

/**
 * The 200 answer with a snapshot's body: Last-Modified (the fetch time, as wall time), Age, and a
 * max-age that runs until the next poll is due (0 when no poll is scheduled, or it is
 * overdue). Age and max-age change once a second, so the answer made for one (body, Age,
 * max-age) is sent again as it is to every request in that second: a responder keeps the
 * last one it made.
 */
export type SnapshotResponder = (body: Buffer, fetchedAt: number, now: number, nextPollDueAt: number | null) => ServedResponse;

export function createSnapshotResponder(wallOffset: () => number = () => 0): SnapshotResponder {
  let last: { body: Buffer; age: number; maxAge: number; response: ServedResponse } | null = null;
  let lastModified = { seconds: NaN, text: '' };
  return (body, fetchedAt, now, nextPollDueAt) => {
    const age = Math.max(0, Math.floor((now - fetchedAt) / 1000));
    const maxAge = nextPollDueAt === null ? 0 : Math.max(0, Math.ceil((nextPollDueAt - now) / 1000));
    if (last !== null && last.body === body && last.age === age && last.maxAge === maxAge) return last.response;
    // Last-Modified is wall time, to the second: the fetch time on the process clock moved by the offset now.
    const seconds = Math.floor((fetchedAt + wallOffset()) / 1000);
    if (lastModified.seconds !== seconds) lastModified = { seconds, text: new Date(seconds * 1000).toUTCString() };
    const headers = {
      'content-type': JSON_TYPE,
      'last-modified': lastModified.text,
      age: String(age),
      'cache-control': `max-age=${maxAge}`,
      'content-length': String(body.length),
      [NOSNIFF]: 'nosniff',
    };
    last = { body, age, maxAge, response: { status: 200, headers, body } };
    return last.response;
  };
}

/** Seconds a client should wait before asking again for data we do not have yet. */
export function retryAfterSeconds(now: number, nextPollDueAt: number | null): string {
  if (nextPollDueAt === null) return '5';
  return String(Math.max(1, Math.ceil((nextPollDueAt - now) / 1000)));
}

/** What a query endpoint answering from one part of the snapshot needs of every request. */
export interface SnapshotQueryRequest {
  readonly method: string;
  readonly query: string;
  readonly now: number;
  readonly maxAgeSeconds: number;
  readonly nextPollDueAt: number | null;
  readonly testnet: boolean;
}

/**
 * The 503 for a part of the snapshot (`wallet`, `jetton`) that cannot be served: still
 * loading from disk (Retry-After 1), not polled yet, or older than maxAgeSeconds (Retry-After
 * until the next poll).
 */
export function unavailableResponse(
  part: string,
  missing: boolean,
  loading: boolean,
  request: Omit<SnapshotQueryRequest, 'method' | 'query' | 'testnet'>,
): ServedResponse {
  const error = loading
    ? `the ${part} snapshot is still loading from disk`
    : missing
      ? `no ${part} snapshot yet: the first ${part} poll has not finished`
      : `${part} snapshot is older than snapshot.maxAgeSeconds (${request.maxAgeSeconds} s): the upstream is failing`;
  return jsonResponse(503, { error }, { 'retry-after': loading ? '1' : retryAfterSeconds(request.now, request.nextPollDueAt) });
}
