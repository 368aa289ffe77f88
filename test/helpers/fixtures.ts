import { readFileSync } from 'node:fs';
import type { QueueSizesSnapshot } from '../../src/features/queue-sizes/types.js';
import type { JettonRecord } from '../../src/domain/jettons.js';

export function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as unknown;
}

const HASH = 'aa5DrbypWLx+3hICy5IOusAsMB8LA+JY41tjUtlYVhQ=';

/** A queue snapshot: masterchain plus two basechain shards. */
export function queueSnapshot(overrides: Partial<QueueSizesSnapshot> = {}): QueueSizesSnapshot {
  return {
    fetchedAt: 1_755_815_024_462,
    upstream: 'toncenter',
    extMsgQueueSizeLimit: 8000,
    shards: [
      { workchain: -1, shard: '-9223372036854775808', seqno: 51149550, rootHash: HASH, fileHash: HASH, size: 0 },
      { workchain: 0, shard: '4611686018427387904', seqno: 56000001, rootHash: HASH, fileHash: HASH, size: 2000 },
      { workchain: 0, shard: '-4611686018427387904', seqno: 56000002, rootHash: HASH, fileHash: HASH, size: 9000 },
    ],
    ...overrides,
  };
}

/** A jetton record as the poll makes it for a holder: `wallet` its jetton wallet, lt 1, no hashes. */
export function jettonRecord(wallet: string, balance: string, fetchedAt: number): JettonRecord {
  return { wallet, balance, lastTransactionLt: '1', codeHash: null, dataHash: null, fetchedAt, upstream: 'sim' };
}
