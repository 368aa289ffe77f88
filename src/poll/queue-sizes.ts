import type { Logger } from 'pino';
import type { QueueSizesSnapshot } from '../snapshot/types.js';
import type { Fetched, QueueSizesAnswer, UpstreamClient } from '../domain/upstream.js';

/** Upstream answer → snapshot. Pure. */
export function queueSizesSnapshotFrom(fetched: Fetched<QueueSizesAnswer>): QueueSizesSnapshot {
  return {
    fetchedAt: fetched.fetchedAt,
    upstream: fetched.upstream,
    extMsgQueueSizeLimit: fetched.value.ext_msg_queue_size_limit,
    shards: fetched.value.shards.map((entry) => ({
      workchain: entry.id.workchain,
      shard: entry.id.shard,
      seqno: entry.id.seqno,
      rootHash: entry.id.root_hash,
      fileHash: entry.id.file_hash,
      size: entry.size,
    })),
  };
}

export interface QueueSizesPollDeps {
  readonly client: UpstreamClient;
  readonly logger: Logger;
  /** Receives each new snapshot (store + persistence). */
  readonly publish: (snapshot: QueueSizesSnapshot) => void;
}

/** One queue-size poll: fetch, validate, publish. A failure keeps the last good snapshot. */
export async function pollQueueSizes(deps: QueueSizesPollDeps, signal?: AbortSignal): Promise<{ ok: true } | { ok: false; error: string }> {
  const result = await deps.client.fetchQueueSizes(signal);
  if (!result.ok) {
    const { error } = result;
    if (error.code !== 'aborted') {
      deps.logger.warn({ upstream: error.details.upstream, code: error.code, err: error.message }, 'queue-size poll failed; keeping the last snapshot');
    }
    return { ok: false, error: `${error.code}: ${error.message}` };
  }
  const snapshot = queueSizesSnapshotFrom(result.value);
  deps.publish(snapshot);
  deps.logger.debug({ upstream: snapshot.upstream, shards: snapshot.shards.length }, 'queue sizes updated');
  return { ok: true };
}
