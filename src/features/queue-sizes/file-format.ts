import * as z from 'zod';
import type { ZodSafeParseResult } from 'zod';
import { SNAPSHOT_FORMAT, type PartCodec } from '../../snapshot/persisted-file.js';
import type { QueueSizesSnapshot } from './types.js';

/** The queue-size file (`snapshot.file`): one JSON document, version 2, its time as wall time. */
export const QUEUE_FILE_VERSION = 2;

const shardQueueSchema = z.object({
  workchain: z.number().int(),
  shard: z.string(),
  seqno: z.number().int(),
  rootHash: z.string(),
  fileHash: z.string(),
  size: z.number().int().nonnegative(),
});

export const queueFileSchema = z.object({
  format: z.literal(SNAPSHOT_FORMAT),
  version: z.literal(QUEUE_FILE_VERSION),
  part: z.literal('queue_sizes'),
  queueSizes: z.object({
    fetchedAt: z.number(),
    upstream: z.string(),
    extMsgQueueSizeLimit: z.number().int().nonnegative(),
    shards: z.array(shardQueueSchema),
  }),
});

export const decodeQueueFile = (value: unknown): ZodSafeParseResult<z.output<typeof queueFileSchema>> => queueFileSchema.safeParse(value);

/** The file as the persisted-file helper writes and reads it. */
export const QUEUE_FILE: PartCodec<QueueSizesSnapshot> = {
  what: 'queue sizes',
  encode(queueSizes, wallOffset) {
    const part = { ...queueSizes, fetchedAt: queueSizes.fetchedAt + wallOffset };
    return `${JSON.stringify({ format: SNAPSHOT_FORMAT, version: QUEUE_FILE_VERSION, part: 'queue_sizes', queueSizes: part })}\n`;
  },
  decode(bytes, toProcess) {
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      return { ok: false, problem: `not valid JSON: ${(err as Error).message}` };
    }
    const parsed = decodeQueueFile(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, problem: `not a ${SNAPSHOT_FORMAT} v${QUEUE_FILE_VERSION} file: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}` };
    }
    const read = parsed.data.queueSizes;
    return { ok: true, part: { ...read, fetchedAt: toProcess(read.fetchedAt) } };
  },
};
