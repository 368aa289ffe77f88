import type { Logger } from 'pino';
import type { QueueSizesSnapshot } from './types.js';
import type { Fetched, QueueSizesAnswer, UpstreamClient } from '../../domain/upstream.js';

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

/**
 * Whether `next` goes back against `held`: its masterchain block, or a shard block it
 * shares with `held` (same workchain and shard id), has a lower seqno. An answer from an
 * upstream a few blocks behind the one that answered last is older; a split or merge is not
 * (new shard ids, whose seqnos continue from their parents'). Pure.
 */
export function isOlderAnswer(next: QueueSizesSnapshot, held: QueueSizesSnapshot): boolean {
  const seqnos = new Map(held.shards.map((s) => [`${s.workchain}:${s.shard}`, s.seqno]));
  return next.shards.some((s) => s.seqno < (seqnos.get(`${s.workchain}:${s.shard}`) ?? -Infinity));
}

export interface QueueSizesPollDeps {
  readonly client: UpstreamClient;
  readonly logger: Logger;
  /** Receives each new snapshot (store + persistence). */
  readonly publish: (snapshot: QueueSizesSnapshot) => void;
  /** The snapshot served now while it is fresh, else null: an answer older than it is not applied. */
  readonly held?: () => QueueSizesSnapshot | null;
  /** Told of an answer that was older than the one held, and not applied. */
  readonly stale?: (upstream: string) => void;
}

/**
 * One queue-size poll: fetch, validate, publish. A failure keeps the last good snapshot;
 * so does an answer older than it (never backwards: shard seqnos only grow in what is
 * served and exported).
 */
export async function pollQueueSizes(deps: QueueSizesPollDeps, signal?: AbortSignal): Promise<{ ok: true } | { ok: false; error: string }> {
  const result = await deps.client.fetchQueueSizes(signal);
  if (!result.ok) {
    const { error } = result;
    // Logged by the caller once per episode of failures.
    if (error.code !== 'aborted') deps.logger.debug({ upstream: error.details.upstream, code: error.code, err: error.message }, 'queue-size poll failed');
    return { ok: false, error: `${error.code}: ${error.message} (${error.details.upstream})` };
  }
  const snapshot = queueSizesSnapshotFrom(result.value);
  const held = deps.held?.() ?? null;
  if (held !== null && isOlderAnswer(snapshot, held)) {
    deps.stale?.(snapshot.upstream);
    deps.logger.debug({ upstream: snapshot.upstream, heldFrom: held.upstream }, 'queue sizes older than those held; not applied');
    return { ok: true };
  }
  deps.publish(snapshot);
  deps.logger.debug({ upstream: snapshot.upstream, shards: snapshot.shards.length }, 'queue sizes updated');
  return { ok: true };
}
