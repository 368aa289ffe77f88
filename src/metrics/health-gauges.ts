import type { Registry } from 'prom-client';
import type { ClusterReading } from '../domain/cluster.js';
import { labelledReadGauge, readGauge } from './read-gauges.js';

/** What the core's self metrics read at scrape time. */
export interface HealthSource {
  /** The queries polled (each feature's), in order. */
  queries(): readonly string[];
  /**
   * 1 when the last poll of `query` succeeded and its data is fresh; undefined when the
   * query is not polled at all (nothing to poll in the config): then there is no series.
   */
  up(query: string): boolean | undefined;
  /** Age of the data served for `query`, seconds; undefined when there is none. */
  snapshotAgeSeconds(query: string): number | undefined;
  /** Time of the last successful poll, ms since epoch; undefined before the first. */
  lastSuccessAt(query: string): number | undefined;
  watchlistSize(): number;
  /** This replica's view of its cluster; undefined in one process (no tonwatch_cluster_* series). */
  cluster(): ClusterReading | undefined;
}

/** The core's self metrics read from the daemon's state when /metrics is rendered: absent when there is nothing to read. */
export function registerHealthGauges(registers: Registry[], health: HealthSource): void {
  labelledReadGauge(registers, 'tonwatch_up', '1 when the last poll of the query succeeded and its data is fresh.', 'query', () =>
    health.queries().map((query) => {
      const up = health.up(query);
      return [query, up === undefined ? undefined : up ? 1 : 0] as const;
    }),
  );
  labelledReadGauge(registers, 'tonwatch_last_success_timestamp_seconds', 'Unix time of the last successful poll of the query.', 'query', () =>
    health.queries().map((query) => {
      const at = health.lastSuccessAt(query);
      return [query, at === undefined ? undefined : at / 1000] as const;
    }),
  );
  labelledReadGauge(registers, 'tonwatch_snapshot_age_seconds', 'Age of the data now served for the query, in seconds.', 'query', () =>
    health.queries().map((query) => [query, health.snapshotAgeSeconds(query)] as const),
  );
  readGauge(registers, 'tonwatch_watchlist_size', 'Addresses on the watchlist.', () => health.watchlistSize());
  const cluster = <K extends keyof ClusterReading>(key: K): ClusterReading[K] | undefined => health.cluster()?.[key];
  const flag = (value: boolean | undefined): number | undefined => (value === undefined ? undefined : value ? 1 : 0);
  readGauge(registers, 'tonwatch_cluster_members', 'Live replicas of the cluster, as Redis listed them at the last heartbeat (absent in one process).', () =>
    cluster('members'),
  );
  readGauge(registers, 'tonwatch_cluster_owned_wallets', 'Watched wallets this replica polls and exports (absent in one process).', () =>
    cluster('ownedWallets'),
  );
  readGauge(registers, 'tonwatch_cluster_leader', '1 on the replica that polls and exports what one replica polls for all (absent in one process).', () =>
    flag(cluster('leader')),
  );
  readGauge(
    registers,
    'tonwatch_cluster_redis_up',
    '1 while Redis answers the heartbeat; 0: going on with the last known cluster (absent in one process).',
    () => flag(cluster('redisUp')),
  );
}
