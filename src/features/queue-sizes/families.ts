import { gauge } from '../../metrics/catalogue.js';

/** The queue sizes' chain series. */
export const QUEUE_METRICS = {
  outMsgQueueSize: gauge('ton_out_msg_queue_size', "Messages in the shard's outbound message queue."),
  extMsgQueueSizeLimit: gauge(
    'ton_ext_msg_queue_size_limit',
    'ext_msg_queue_size_limit as the upstream reports it; above it ordinary external messages are delayed.',
  ),
  outMsgQueuePressureRatio: gauge('ton_out_msg_queue_pressure_ratio', 'Outbound queue size divided by ext_msg_queue_size_limit (absent when the limit is 0).'),
  shardBlockSeqno: gauge('ton_shard_block_seqno', 'Seqno of the shard block the queue size belongs to.'),
} as const;
