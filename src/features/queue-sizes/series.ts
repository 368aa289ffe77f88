import { signedShardToHex } from '../../ton/shard.js';
import type { QueueSizesSnapshot } from './types.js';
import { QUEUE_METRICS } from './families.js';
import { createExposition, formatValue, labelSet } from '../../metrics/text-format.js';

/** The queue-pressure series of one snapshot, in the text format. Pure. */
export function renderQueueSeries(snapshot: QueueSizesSnapshot): string {
  const out = createExposition();
  const limit = snapshot.extMsgQueueSizeLimit;
  out.add(QUEUE_METRICS.extMsgQueueSizeLimit, '', formatValue(limit));
  for (const shard of snapshot.shards) {
    const labels = labelSet([
      ['workchain', String(shard.workchain)],
      ['shard', signedShardToHex(shard.shard)],
    ]);
    out.add(QUEUE_METRICS.outMsgQueueSize, labels, formatValue(shard.size));
    // A ratio over a limit of 0 (some mock servers report 0) is undefined: no series.
    if (limit > 0) out.add(QUEUE_METRICS.outMsgQueuePressureRatio, labels, formatValue(shard.size / limit));
    out.add(QUEUE_METRICS.shardBlockSeqno, labels, formatValue(shard.seqno));
  }
  return out.text();
}
