import { perObject } from '../../domain/per-object.js';
import { isFresh } from '../../snapshot/freshness.js';
import type { QueueSizesSnapshot } from './types.js';
import { createSnapshotResponder, jsonResponse, MAX_JSON_RPC_BODY_BYTES, retryAfterSeconds, type ServedResponse } from '../../serve/response.js';
import type { Route, ServedRequest } from '../../serve/route.js';
import type { FeatureContext } from '../feature.js';

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

/**
 * The response body for a snapshot. Pure; the cache below keeps one per snapshot.
 * `wallOffset` turns the fetch time (process clock) into the wall time `@extra` carries.
 */
export function queueSizesBody(snapshot: QueueSizesSnapshot, wallOffset = 0): string {
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
      '@extra': `${((snapshot.fetchedAt + wallOffset) / 1000).toFixed(3)}:${snapshot.upstream}:snapshot`,
    },
  });
}

function v2Error(status: number, error: string, headers: Record<string, string> = {}): ServedResponse {
  return jsonResponse(status, { ok: false, error, code: status }, headers);
}

export interface QueueSizesHandler {
  serve(snapshot: QueueSizesSnapshot | null, request: QueueSizesRequest): ServedResponse;
}

/** The handler, with the body encoded once per snapshot and the headers made once per second. */
export function createQueueSizesHandler(wallOffset: () => number = () => 0): QueueSizesHandler {
  const respond = createSnapshotResponder(wallOffset);
  const bodyOf = perObject((snapshot: QueueSizesSnapshot): Buffer => Buffer.from(queueSizesBody(snapshot, wallOffset())));
  return {
    serve(snapshot, request) {
      if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'POST') {
        return v2Error(405, `method ${request.method} not allowed; use GET or POST`, { allow: 'GET, HEAD, POST' });
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
      return respond(bodyOf(snapshot), snapshot.fetchedAt, request.now, request.nextPollDueAt);
    },
  };
}

/** Where toncenter serves the queue sizes: its Python server's plural path, its C++ server's singular one. */
export const QUEUE_SIZES_PATHS = ['/api/v2/getOutMsgQueueSizes', '/api/v2/getOutMsgQueueSize'] as const;

/** The queue-size route; POST with a JSON body too, as toncenter's C++ server takes it (the body is not read: there are no parameters). */
export function queueSizesRoute(handle: Route['handle']): Route {
  return { endpoint: 'queue_sizes', handle, maxBodyBytes: MAX_JSON_RPC_BODY_BYTES };
}

/** The queue sizes' routes (both v2 spellings) and their v2 methods (for JSON-RPC), reading what is held and the config in force. */
export function queueRoutes(
  held: () => QueueSizesSnapshot | null,
  ctx: Pick<FeatureContext, 'now' | 'wallOffset' | 'current'>,
): { paths: readonly (readonly [string, Route])[]; methods: Readonly<Record<string, (request: ServedRequest) => ServedResponse>> } {
  const handler = createQueueSizesHandler(ctx.wallOffset);
  const serve = (request: ServedRequest): ServedResponse =>
    handler.serve(held(), {
      method: request.method,
      now: ctx.now(),
      maxAgeSeconds: ctx.current().config.snapshot.maxAgeSeconds,
      nextPollDueAt: ctx.current().scheduler.nextRunAt('queue_sizes'),
    });
  const route = queueSizesRoute(serve);
  return {
    paths: QUEUE_SIZES_PATHS.map((path) => [path, route] as const),
    methods: { getOutMsgQueueSizes: serve, getOutMsgQueueSize: serve },
  };
}
