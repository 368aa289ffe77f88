import { isFresh } from '../snapshot/freshness.js';
import type { QueueSizesSnapshot } from '../snapshot/types.js';
import { jsonResponse, retryAfterSeconds, snapshotHeaders, type ServedResponse } from './response.js';

/**
 * `GET /api/v2/getOutMsgQueueSizes` (and the singular alias), exactly as toncenter's API
 * gives it: its constants (`chain.blockIdExt`, whatever the upstream called it), and `@extra`
 * = `<fetch time, unix seconds with decimals>:<upstream>:snapshot`.
 */

export interface QueueSizesRequest {
  readonly method: string;
  readonly now: number;
  readonly maxAgeSeconds: number;
  readonly nextPollDueAt: number | null;
}

/** The response body for a snapshot. Pure; the cache below keeps one per snapshot. */
export function queueSizesBody(snapshot: QueueSizesSnapshot): string {
  return JSON.stringify({
    ok: true,
    result: {
      '@type': 'blocks.outMsgQueueSizes',
      shards: snapshot.shards.map((s) => ({
        '@type': 'blocks.outMsgQueueSize',
        id: {
          '@type': 'chain.blockIdExt',
          workchain: s.workchain,
          shard: s.shard,
          seqno: s.seqno,
          root_hash: s.rootHash,
          file_hash: s.fileHash,
        },
        size: s.size,
      })),
      ext_msg_queue_size_limit: snapshot.extMsgQueueSizeLimit,
      '@extra': `${(snapshot.fetchedAt / 1000).toFixed(3)}:${snapshot.upstream}:snapshot`,
    },
  });
}

function v2Error(status: number, error: string, headers: Record<string, string> = {}): ServedResponse {
  return jsonResponse(status, { ok: false, error, code: status }, headers);
}

/** What is sent for one snapshot, prepared once. */
interface Encoded {
  readonly body: Buffer;
  readonly lastModified: string;
}

export interface QueueSizesHandler {
  serve(snapshot: QueueSizesSnapshot | null, request: QueueSizesRequest): ServedResponse;
}

/** The handler, with the body encoded once per snapshot. */
export function createQueueSizesHandler(): QueueSizesHandler {
  const encoded = new WeakMap<QueueSizesSnapshot, Encoded>();
  const cachedBody = (snapshot: QueueSizesSnapshot): Encoded => {
    let found = encoded.get(snapshot);
    if (!found) {
      found = { body: Buffer.from(queueSizesBody(snapshot)), lastModified: new Date(snapshot.fetchedAt).toUTCString() };
      encoded.set(snapshot, found);
    }
    return found;
  };
  return { serve: (snapshot, request) => serveQueueSizes(snapshot, request, cachedBody) };
}

function serveQueueSizes(
  snapshot: QueueSizesSnapshot | null,
  request: QueueSizesRequest,
  cachedBody: (snapshot: QueueSizesSnapshot) => Encoded,
): ServedResponse {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return v2Error(405, `method ${request.method} not allowed; use GET`, { allow: 'GET, HEAD' });
  }
  if (snapshot === null) {
    return v2Error(503, 'no queue-size snapshot yet: the first poll has not succeeded', {
      'retry-after': retryAfterSeconds(request.now, request.nextPollDueAt),
    });
  }
  if (!isFresh(snapshot.fetchedAt, request.now, request.maxAgeSeconds)) {
    const age = Math.floor((request.now - snapshot.fetchedAt) / 1000);
    return v2Error(503, `queue-size snapshot is ${age} s old, older than snapshot.maxAgeSeconds (${request.maxAgeSeconds} s): the upstream is failing`, {
      'retry-after': retryAfterSeconds(request.now, request.nextPollDueAt),
    });
  }
  const { body, lastModified } = cachedBody(snapshot);
  return { status: 200, headers: snapshotHeaders(snapshot.fetchedAt, request.now, request.nextPollDueAt, lastModified), body };
}
