import type { QueueSizesSnapshot, ShardQueue } from '../../snapshot/types.js';

/**
 * The snapshot files' format name and the queue-size file's version (file-format.ts has
 * the files' schemas), and that file checked by hand: for a start that answers before zod
 * is loaded (start-early.ts). A test holds the check to agreeing with queueFileSchema.
 */
export const FORMAT = 'tonwatch-snapshot';
export const QUEUE_FILE_VERSION = 2;

/**
 * The queue sizes of a parsed queue-size file, exactly as queueFileSchema gives them (its
 * keys only, in its order), with `fetchedAt` as written (wall time); null when the file is
 * not one the schema takes.
 */
export function queueSizesOfFile(value: unknown): QueueSizesSnapshot | null {
  if (!isRecord(value) || value['format'] !== FORMAT || value['version'] !== QUEUE_FILE_VERSION || value['part'] !== 'queue_sizes') return null;
  const sizes = value['queueSizes'];
  if (!isRecord(sizes)) return null;
  const { fetchedAt, upstream, extMsgQueueSizeLimit, shards } = sizes;
  if (!isFiniteNumber(fetchedAt) || typeof upstream !== 'string' || !isCount(extMsgQueueSizeLimit) || !Array.isArray(shards)) return null;
  const read: ShardQueue[] = [];
  for (const shard of shards as unknown[]) {
    if (!isRecord(shard)) return null;
    const { workchain, shard: id, seqno, rootHash, fileHash, size } = shard;
    if (
      !isInteger(workchain) ||
      typeof id !== 'string' ||
      !isInteger(seqno) ||
      typeof rootHash !== 'string' ||
      typeof fileHash !== 'string' ||
      !isCount(size)
    ) {
      return null;
    }
    read.push({ workchain, shard: id, seqno, rootHash, fileHash, size });
  }
  return { fetchedAt, upstream, extMsgQueueSizeLimit, shards: read };
}

/** A plain object, as zod's z.object takes (not an array, not null). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isInteger = (value: unknown): value is number => Number.isSafeInteger(value);
const isCount = (value: unknown): value is number => isInteger(value) && value >= 0;
