/** What a replica says of its cluster in its metrics (tonwatch_cluster_*): cluster/ reads it, metrics/ exports it. */
export interface ClusterReading {
  /** Replicas alive now, this one included. */
  readonly members: number;
  /** Watched wallets this replica polls. */
  readonly ownedWallets: number;
  /** Whether it polls what one replica polls for all (the queue sizes). */
  readonly leader: boolean;
  readonly redisUp: boolean;
}
