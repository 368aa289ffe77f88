/** One shard's outbound queue, as the upstream reported it. */
export interface ShardQueue {
  readonly workchain: number;
  /** Signed 64-bit decimal, as toncenter's API carries it. */
  readonly shard: string;
  readonly seqno: number;
  /** Standard base64, 44 characters. */
  readonly rootHash: string;
  readonly fileHash: string;
  /** Messages in the shard's outbound queue. */
  readonly size: number;
}

/** The queue sizes polled last: immutable, replaced whole (readers never see half an update, and may cache by identity). */
export interface QueueSizesSnapshot {
  /** When the upstream's answer arrived (process clock, ms). */
  readonly fetchedAt: number;
  /** Name of the upstream that answered. */
  readonly upstream: string;
  readonly extMsgQueueSizeLimit: number;
  /** Masterchain first, then basechain shards, in upstream order. */
  readonly shards: readonly ShardQueue[];
}
