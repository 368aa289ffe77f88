import { describe, expect, it } from 'vitest';
import { decodeQueueFile, queueFileSchema } from '../../src/features/wallets/file-format.js';
import { FORMAT, QUEUE_FILE_VERSION, queueSizesOfFile } from '../../src/features/queue-sizes/file-format.js';
import { clone, DELETE, expectAgreement, mutated, notAFile } from '../helpers/zod-agreement.js';

type Json = Record<string, unknown>;

/** A queue-size file as tonwatch writes it (snapshot/persist.ts). */
const FILE = {
  format: FORMAT,
  version: QUEUE_FILE_VERSION,
  part: 'queue_sizes',
  queueSizes: {
    fetchedAt: 1_764_000_000_123.5,
    upstream: 'toncenter',
    extMsgQueueSizeLimit: 8000,
    shards: [
      { workchain: -1, shard: '-9223372036854775808', seqno: 48_000_000, rootHash: 'r'.repeat(44), fileHash: 'f'.repeat(44), size: 0 },
      { workchain: 0, shard: '2305843009213693952', seqno: 53_000_000, rootHash: 'R'.repeat(44), fileHash: 'F'.repeat(44), size: 117 },
    ],
  },
};

/** The hand check, as a whole file (what the schema gives), for the agreement helper. */
function quick(value: unknown) {
  const queueSizes = queueSizesOfFile(value);
  return queueSizes === null ? null : { format: FORMAT, version: QUEUE_FILE_VERSION, part: 'queue_sizes' as const, queueSizes };
}

function* mutations(): Generator<[string, unknown]> {
  yield ['as written', clone(FILE)];
  yield ['no shards', { ...clone(FILE), queueSizes: { ...FILE.queueSizes, shards: [] } }];
  type Shape = { queueSizes: { shards: Json[] } & Json } & Json;
  yield* mutated(
    FILE as unknown as Shape,
    {
      workchain: [DELETE, null, '0', 0.5, 2 ** 53, -(2 ** 53), 1e21],
      shard: [DELETE, null, 1, ''],
      seqno: [DELETE, -1, 1.5, '1', 2 ** 60],
      rootHash: [DELETE, null, 1],
      fileHash: [DELETE, null, []],
      size: [DELETE, -1, -0, 0.1, '3', 2 ** 53, Number.MAX_SAFE_INTEGER],
      more: ['extra key'],
    },
    (copy) => copy.queueSizes.shards[1] as Json,
    'shards.1.',
  );
  yield* mutated(
    FILE as unknown as Shape,
    {
      fetchedAt: [DELETE, null, '1', -1, 0, 1e300],
      upstream: [DELETE, null, 7, ''],
      extMsgQueueSizeLimit: [DELETE, -1, 1.5, '8000', 2 ** 53],
      shards: [DELETE, null, {}, [null], [[]], 'x'],
      more: [{ a: 1 }],
    },
    (copy) => copy.queueSizes,
    'queueSizes.',
  );
  yield* mutated(FILE as unknown as Shape, {
    format: [DELETE, 'tonwatch', 1],
    version: [DELETE, 1, 3, '2'],
    part: [DELETE, 'wallets'],
    queueSizes: [DELETE, null, [], 'x'],
    more: ['x'],
  });
  yield* notAFile();
}

describe('queue-size file, checked by hand (a start answering before zod is loaded)', () => {
  it('reads a file tonwatch wrote exactly as the zod schema does', () => {
    expect(quick(clone(FILE))).toStrictEqual(queueFileSchema.parse(clone(FILE)));
  });

  it('never accepts what zod refuses and never reads differently', () => {
    const { cases, fast } = expectAgreement(mutations(), { schema: queueFileSchema, quick, decode: decodeQueueFile });
    expect(cases).toBeGreaterThan(60);
    // What it accepts is exactly what zod accepts here: nothing is left to zod in this file's format.
    const accepted = [...mutations()].filter(([, value]) => queueFileSchema.safeParse(clone(value)).success).length;
    expect(fast).toBe(accepted);
  });
});
