import type { Feature, FeatureContext } from '../features/feature.js';

/**
 * Cluster mode's lifecycle (cluster/link.ts): the Redis client is loaded before anything
 * else, the replica joins once the server listens, and leaves first at shutdown, so its
 * wallets go to the others at their next heartbeat rather than after its ttl. Its metrics:
 * tonwatch_cluster_* (absent in one process).
 */
export function createClusterFeature(ctx: FeatureContext): Feature {
  const { cluster } = ctx;
  return {
    name: 'cluster',
    health: { cluster: () => cluster.reading() },
    load: () => cluster.load(),
    start: () => cluster.start(),
    stop: () => cluster.stop(),
  };
}
