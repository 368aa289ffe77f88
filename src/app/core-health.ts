import type { PolledQuery } from '../features/feature.js';
import type { QueryName } from '../domain/queries.js';
import type { Generation } from './generation.js';
import type { HealthSource } from '../metrics/registry.js';
import type { PollStatus } from '../schedule/poll-status.js';
import { ageSeconds, isFresh } from '../snapshot/freshness.js';
import type { SnapshotStore } from '../snapshot/store.js';

/** The self metrics' readings that are the daemon's own (the features add theirs; `polled`: the queries features keep themselves). */
export function coreHealth(
  store: SnapshotStore,
  status: PollStatus,
  current: () => Generation,
  now: () => number,
  wallOffset: () => number,
  polled: () => readonly PolledQuery[],
): HealthSource {
  const ownerOf = (query: QueryName): PolledQuery | undefined => polled().find((p) => p.query === query);
  const fetchedAtOf = (query: QueryName): number | undefined =>
    query === 'queue_sizes' ? store.current().queueSizes?.fetchedAt : query === 'wallets' ? store.current().wallets?.fetchedAt : ownerOf(query)?.fetchedAt();
  return {
    up(query) {
      if (query === 'wallets' && current().config.watchlist.length === 0) return undefined;
      if (query !== 'wallets' && query !== 'queue_sizes' && ownerOf(query)?.active() !== true) return undefined;
      const fetchedAt = fetchedAtOf(query);
      return status.get(query).lastOk !== false && fetchedAt !== undefined && isFresh(fetchedAt, now(), current().config.snapshot.maxAgeSeconds);
    },
    snapshotAgeSeconds(query) {
      const fetchedAt = fetchedAtOf(query);
      return fetchedAt === undefined ? undefined : ageSeconds(fetchedAt, now());
    },
    lastSuccessAt(query) {
      const at = status.get(query).lastSuccessAt ?? fetchedAtOf(query);
      return at === undefined ? undefined : at + wallOffset();
    },
    watchlistSize: () => current().config.watchlist.length,
    upstreamLags: () => new Map(),
    maxLagBlocks: () => undefined,
    readThroughCacheSize: () => undefined,
    cluster: () => undefined,
  };
}
