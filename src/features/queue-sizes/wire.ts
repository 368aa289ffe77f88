import { SNAPSHOT_FORMAT } from '../../snapshot/persisted-file.js';
import { decodeQueueFile, QUEUE_FILE_VERSION } from './file-format.js';
import type { QueueSizesSnapshot } from './types.js';

/** Queue sizes as replicas hand them to each other through Redis (cluster/share.ts): the queue file's document, times in wall time. */

export function encodeQueueSizes(queueSizes: QueueSizesSnapshot, wallOffset: number): string {
  return JSON.stringify({
    format: SNAPSHOT_FORMAT,
    version: QUEUE_FILE_VERSION,
    part: 'queue_sizes',
    queueSizes: { ...queueSizes, fetchedAt: queueSizes.fetchedAt + wallOffset },
  });
}

export function decodeQueueSizes(text: string, toProcess: (wall: number) => number): QueueSizesSnapshot | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = decodeQueueFile(value);
  if (!parsed.success) return null;
  const read = parsed.data.queueSizes;
  return { ...read, fetchedAt: toProcess(read.fetchedAt) };
}
