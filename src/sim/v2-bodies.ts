import { createHash } from 'node:crypto';
import type { SimChain } from './chain.js';
import type { Random } from './random.js';

/** Which toncenter server's v2 body the simulator writes: the Python one, the C++ one, or each half the time. */
export type SimStyle = 'python' | 'cpp' | 'both';

/** The signed id of a whole-workchain shard. */
const WHOLE_SHARD_SIGNED = '-9223372036854775808';

/**
 * The simulator's answers about the chain, as toncenter's servers write them: v2
 * getOutMsgQueueSizes in either server's style, v2 getMasterchainInfo, and the v3 indexer's
 * masterchainInfo, each showing the tip `lag().blocks` behind (its indexer `lag().indexer` more).
 */
export function createSimBodies(options: {
  readonly chain: SimChain;
  readonly random: Random;
  readonly now: () => number;
  readonly style: SimStyle;
  readonly lag: () => { readonly blocks: number; readonly indexer: number };
}) {
  const { chain, random, now } = options;
  /** The masterchain seqno this upstream shows: the chain's, held `options.lag().blocks` back. */
  const tipSeqno = (): number => Math.max(1, (chain.queues()[0]?.seqno ?? 1) - options.lag().blocks);
  const blockHash = (kind: string, seqno: number): string => createHash('sha256').update(`mc:${kind}:${seqno}`).digest('base64');

  const queueSizesBody = (): string => {
    const extra = `${(now() / 1000).toFixed(7)}:${options.style === 'cpp' ? 0 : random.int(0, 12)}:${random.next()}`;
    const result = {
      '@type': 'blocks.outMsgQueueSizes',
      shards: chain.queues().map((q) => ({
        '@type': 'blocks.outMsgQueueSize',
        id:
          q.workchain === -1 && options.lag().blocks > 0
            ? {
                '@type': 'ton.blockIdExt',
                workchain: -1,
                shard: q.shard,
                seqno: tipSeqno(),
                root_hash: blockHash('root', tipSeqno()),
                file_hash: blockHash('file', tipSeqno()),
              }
            : { '@type': 'ton.blockIdExt', workchain: q.workchain, shard: q.shard, seqno: q.seqno, root_hash: q.rootHash, file_hash: q.fileHash },
        size: q.size,
      })),
      ext_msg_queue_size_limit: chain.limit,
    };
    return JSON.stringify(options.style === 'cpp' ? { ok: true, result, '@extra': extra } : { ok: true, result: { ...result, '@extra': extra } });
  };

  /** v2 getMasterchainInfo, as toncenter's Python server answers it. */
  const masterchainInfoBody = (): string => {
    const seqno = tipSeqno();
    const last = {
      '@type': 'ton.blockIdExt',
      workchain: -1,
      shard: WHOLE_SHARD_SIGNED,
      seqno,
      root_hash: blockHash('root', seqno),
      file_hash: blockHash('file', seqno),
    };
    const init = { '@type': 'ton.blockIdExt', workchain: -1, shard: '0', seqno: 0, root_hash: blockHash('root', 0), file_hash: blockHash('file', 0) };
    const extra = `${(now() / 1000).toFixed(7)}:0:${random.next()}`;
    return JSON.stringify({ ok: true, result: { '@type': 'blocks.masterchainInfo', last, state_root_hash: blockHash('state', seqno), init, '@extra': extra } });
  };

  /** v3 masterchainInfo, as ton-indexer answers it: its first and last indexed masterchain blocks. */
  const indexerMasterchainInfoBody = (): string => {
    const block = (seqno: number) => ({
      workchain: -1,
      shard: '8000000000000000',
      seqno,
      root_hash: blockHash('root', seqno),
      file_hash: blockHash('file', seqno),
      gen_utime: String(Math.floor(now() / 1000)),
    });
    return JSON.stringify({ first: block(1), last: block(Math.max(1, tipSeqno() - options.lag().indexer)) });
  };

  return { queueSizes: queueSizesBody, masterchainInfo: masterchainInfoBody, indexerMasterchainInfo: indexerMasterchainInfoBody };
}
