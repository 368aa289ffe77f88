import { Registry, collectDefaultMetrics } from 'prom-client';
import type { ConnectionDrop } from '../domain/connections.js';
import { ALWAYS_POLLED, type QueryName } from '../domain/queries.js';
import type { UpstreamLag, UpstreamObserver } from '../domain/upstream.js';
import type { PersistObserver } from '../snapshot/persist.js';
import type { ClusterReading } from '../cluster/view.js';
import { readGauge } from './read-gauges.js';
import { registerHealthGauges } from './health-gauges.js';
import { createInstruments } from './instruments.js';
import { createReadings } from './readings.js';
import { createServedCounts } from './served-counts.js';

/**
 * Every metric name tonwatch exports, in one place. Chain facts (`ton_*`) are rendered
 * from the snapshot once per poll (queue-series.ts, wallet-series.ts); the daemon's own health (`tonwatch_*`) lives
 * in a prom-client Registry of our own, never the global one.
 */

export { CHAIN_METRICS, type MetricFamily } from './catalogue.js';

/** What the self metrics read at scrape time. */
export interface HealthSource {
  /**
   * 1 when the last poll of `query` succeeded and its data is fresh; undefined when the
   * query is not polled at all (wallets with an empty watchlist): then there is no series.
   */
  up(query: QueryName): boolean | undefined;
  /** Age of the data served for `query`, seconds; undefined when there is none. */
  snapshotAgeSeconds(query: QueryName): number | undefined;
  /** Time of the last successful poll, ms since epoch; undefined before the first. */
  lastSuccessAt(query: QueryName): number | undefined;
  watchlistSize(): number;
  /** The last lag check's findings by upstream (empty before the first, or with the check off). */
  upstreamLags(): ReadonlyMap<string, UpstreamLag>;
  /** lagCheck.maxLagBlocks while the check runs; undefined when it is off. */
  maxLagBlocks(): number | undefined;
  /** Addresses the read-through cache holds; undefined while read-through is off. */
  readThroughCacheSize(): number | undefined;
  /** This replica's view of its cluster; undefined in one process (no tonwatch_cluster_* series). */
  cluster(): ClusterReading | undefined;
}

export interface SelfMetrics {
  /** tonwatch's own metrics (Node's process metrics are kept apart, in texts()). */
  readonly registry: Registry;
  /**
   * The self-metrics part of a /metrics body: tonwatch's own metrics, and Node's process
   * metrics, gathered at most every PROCESS_METRICS_EVERY_MS (the same buffer in between,
   * so its gzip member is made once too). The own metrics are read again for a scrape
   * unless the last reading is under OWN_METRICS_REUSE_MS old and nothing but scrapes
   * happened since (see there).
   */
  texts(): Promise<[Buffer, Buffer]>;
  readonly upstream: UpstreamObserver;
  observePoll(query: QueryName, durationSeconds: number): void;
  servedRequest(endpoint: string, code: number): void;
  configReloaded(successful: boolean): void;
  /** One /metrics body made: its encoding, how long it took (seconds) and its size (bytes). */
  metricsRendered(encoding: 'gzip' | 'identity', durationSeconds: number, bytes: number): void;
  /** The number of /metrics requests being answered now. */
  metricsInFlight(inFlight: number): void;
  /** Read-through addresses by outcome. */
  readThrough(result: 'hit' | 'fetched' | 'coalesced' | 'unknown' | 'refused', addresses: number): void;
  /** An upstream's answer older than the data served (never backwards): not applied. */
  staleAnswer(upstream: string, query: QueryName): void;
  /** How writes of the snapshot files go. */
  readonly persist: PersistObserver;
  /** A connection opened or closed, or why one was cut or refused. */
  connection(event: 'opened' | 'closed' | ConnectionDrop): void;
}

export { OWN_METRICS_REUSE_MS, PROCESS_METRICS_EVERY_MS } from './readings.js';

/** The `endpoint` label of /metrics requests in tonwatch_served_requests_total. */
export const METRICS_ENDPOINT = 'metrics';

export function createSelfMetrics(options: {
  version: string;
  nodeVersion: string;
  health: HealthSource;
  defaultMetrics?: boolean;
  /** The process clock (domain/clock.ts; default Date.now): when readings are due. */
  now?: () => number;
  /** The wall clock, ms since epoch (default Date.now): the timestamps it exports. */
  wall?: () => number;
}): SelfMetrics {
  const { health } = options;
  const now = options.now ?? Date.now;
  const wall = options.wall ?? Date.now;
  const registry = new Registry();
  const registers = [registry];
  const processRegistry = new Registry();
  if (options.defaultMetrics !== false) {
    collectDefaultMetrics({ register: processRegistry });
    // Gauges named *_total break the exposition conventions (promtool check metrics flags
    // them); process_* and the rest of nodejs_* stay.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      processRegistry.removeSingleMetric(name);
    }
  }
  const readings = createReadings(now, registry, processRegistry);
  const { changing } = readings;

  registerHealthGauges(registers, health);
  const instruments = createInstruments(registers, options);
  const served = createServedCounts(registers);
  let persistedAt: number | undefined;
  readGauge(
    registers,
    'tonwatch_snapshot_persisted_timestamp_seconds',
    'Unix time a snapshot file was last written whole (absent until the first write).',
    () => (persistedAt === undefined ? undefined : persistedAt / 1000),
  );
  let connectionsOpen = 0;
  readGauge(registers, 'tonwatch_http_connections', 'Client connections open now (listen.maxConnections bounds them).', () => connectionsOpen);
  instruments.reloadOk.set(1);
  instruments.reloadAt.set(wall() / 1000);

  // Pre-create the series that must exist from the start, so rate() and alerts see zeros.
  for (const query of ALWAYS_POLLED) instruments.pollDuration.zero({ query });

  return {
    registry,
    texts: () => readings.texts(),
    upstream: {
      request: changing((upstream, query, code, durationSeconds) => {
        instruments.upstreamRequests.inc({ upstream, query, code });
        instruments.upstreamDuration.observe({ upstream, query }, durationSeconds);
      }),
      skipped: changing((upstream, query, reason) => instruments.skipped.inc({ upstream, query, reason })),
    },
    observePoll: changing((query, durationSeconds) => instruments.pollDuration.observe({ query }, durationSeconds)),
    servedRequest(endpoint, code) {
      // A scrape's own count may show a reading late (OWN_METRICS_REUSE_MS); any other request's may not.
      if (endpoint !== METRICS_ENDPOINT) readings.changed();
      served.count(endpoint, code);
    },
    metricsRendered(encoding, durationSeconds, bytes) {
      instruments.renderDuration.observe({ encoding }, durationSeconds);
      instruments.responseSize.set({ encoding }, bytes);
    },
    metricsInFlight: (inFlight) => instruments.scrapesInFlight.set(inFlight),
    readThrough: (result, addresses) => {
      if (addresses > 0) changing(() => instruments.readThrough.inc({ result }, addresses))();
    },
    persist: {
      persisted: changing((at) => (persistedAt = at)),
      failed: changing((reason) => instruments.persistFailures.inc({ reason })),
    },
    connection(event) {
      // Opened and closed change only the gauge, read at the next reading: not a reason to read again.
      if (event === 'opened') connectionsOpen += 1;
      else if (event === 'closed') connectionsOpen -= 1;
      else changing(() => instruments.dropped.inc({ reason: event }))();
    },
    staleAnswer: changing((upstream, query) => instruments.staleAnswers.inc({ upstream, query })),
    configReloaded: changing((successful) => {
      instruments.reloadOk.set(successful ? 1 : 0);
      if (successful) instruments.reloadAt.set(wall() / 1000);
    }),
  };
}
