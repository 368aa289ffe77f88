import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { QUERIES, type QueryName } from '../domain/queries.js';
import type { UpstreamLag, UpstreamObserver } from '../domain/upstream.js';
import { PERSIST_FAILURE_REASONS, type PersistObserver } from '../snapshot/persist.js';
import { readGauge } from './read-gauges.js';
import { registerHealthGauges } from './health-gauges.js';
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
  connection(event: 'opened' | 'closed' | 'max_connections' | 'request_timeout' | 'send_timeout'): void;
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
  const pollDuration = new Histogram({
    name: 'tonwatch_poll_duration_seconds',
    help: 'Duration of one poll cycle, retries and budget waits included.',
    labelNames: ['query'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers,
  });
  const upstreamRequests = new Counter({
    name: 'tonwatch_upstream_requests_total',
    help:
      'Upstream requests by HTTP status, or by error class when there was no usable response; liteserver calls by ok, error class or ' +
      'liteserver_error_<code>.',
    labelNames: ['upstream', 'query', 'code'],
    registers,
  });
  const upstreamDuration = new Histogram({
    name: 'tonwatch_upstream_request_duration_seconds',
    help: 'Duration of one upstream request (HTTP request or lite API call).',
    labelNames: ['upstream', 'query'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const served = createServedCounts(registers);
  const renderDuration = new Histogram({
    name: 'tonwatch_metrics_render_duration_seconds',
    help:
      'Time to make one /metrics body, compression included (pre-rendered blocks are reused, so most scrapes take little); for identity, up to ' +
      'its first byte (its blocks are decompressed as it is sent).',
    labelNames: ['encoding'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  });
  const responseSize = new Gauge({
    name: 'tonwatch_metrics_response_size_bytes',
    help: 'Size of the last /metrics body sent in this encoding, in bytes (as sent: compressed for gzip).',
    labelNames: ['encoding'],
    registers,
  });
  const scrapesInFlight = new Gauge({
    name: 'tonwatch_metrics_requests_in_flight',
    help: '/metrics requests being answered now, this one included (beyond listen.maxMetricsRequests they get 503).',
    registers,
  });
  const skipped = new Counter({
    name: 'tonwatch_upstream_skipped_total',
    help: 'Polls that passed an upstream over because the lag check found it behind (reason lagging) or its indexer behind (indexer_lagging).',
    labelNames: ['upstream', 'query', 'reason'],
    registers,
  });
  const staleAnswers = new Counter({
    name: 'tonwatch_upstream_stale_answers_total',
    help: 'Answers older than the data served (a lower shard block seqno, or a wallet state with an older last transaction), not applied.',
    labelNames: ['upstream', 'query'],
    registers,
  });
  const persistFailures = new Counter({
    name: 'tonwatch_snapshot_persist_failures_total',
    help: 'Writes of a snapshot file that failed, by reason: read_only, disk_full, permission, not_a_file (the path is a folder, or its folder a file), other.',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of PERSIST_FAILURE_REASONS) persistFailures.inc({ reason }, 0);
  let persistedAt: number | undefined;
  readGauge(
    registers,
    'tonwatch_snapshot_persisted_timestamp_seconds',
    'Unix time a snapshot file was last written whole (absent until the first write).',
    () => (persistedAt === undefined ? undefined : persistedAt / 1000),
  );
  let connectionsOpen = 0;
  readGauge(registers, 'tonwatch_http_connections', 'Client connections open now (listen.maxConnections bounds them).', () => connectionsOpen);
  const dropped = new Counter({
    name: 'tonwatch_http_connections_dropped_total',
    help:
      'Client connections cut or refused: max_connections (past listen.maxConnections), request_timeout (headers or request not sent in time), ' +
      'send_timeout (a response not taken within listen.sendTimeoutSeconds).',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of ['max_connections', 'request_timeout', 'send_timeout']) dropped.inc({ reason }, 0);
  const readThrough = new Counter({
    name: 'tonwatch_read_through_addresses_total',
    help:
      'Unwatched addresses asked with read-through: hit (cached), fetched, coalesced (joined a fetch in flight), unknown (the upstream does not ' +
      'know it), refused (past maxPendingAddresses).',
    labelNames: ['result'],
    registers,
  });
  for (const result of ['hit', 'fetched', 'coalesced', 'unknown', 'refused']) readThrough.inc({ result }, 0);
  const reloadOk = new Gauge({
    name: 'tonwatch_config_last_reload_successful',
    help: '1 when the last configuration (re)load succeeded, 0 when it was refused.',
    registers,
  });
  reloadOk.set(1);
  const reloadAt = new Gauge({
    name: 'tonwatch_config_last_reload_success_timestamp_seconds',
    help: 'Unix time of the last successful configuration (re)load.',
    registers,
  });
  reloadAt.set(wall() / 1000);
  new Gauge({ name: 'tonwatch_build_info', help: 'Always 1; labels carry the version.', labelNames: ['version', 'node_version'], registers }).set(
    { version: options.version, node_version: options.nodeVersion },
    1,
  );

  // Pre-create the series that must exist from the start, so rate() and alerts see zeros.
  for (const query of QUERIES) pollDuration.zero({ query });

  return {
    registry,
    texts: () => readings.texts(),
    upstream: {
      request: changing((upstream, query, code, durationSeconds) => {
        upstreamRequests.inc({ upstream, query, code });
        upstreamDuration.observe({ upstream, query }, durationSeconds);
      }),
      skipped: changing((upstream, query, reason) => skipped.inc({ upstream, query, reason })),
    },
    observePoll: changing((query, durationSeconds) => pollDuration.observe({ query }, durationSeconds)),
    servedRequest(endpoint, code) {
      // A scrape's own count may show a reading late (OWN_METRICS_REUSE_MS); any other request's may not.
      if (endpoint !== METRICS_ENDPOINT) readings.changed();
      served.count(endpoint, code);
    },
    metricsRendered(encoding, durationSeconds, bytes) {
      renderDuration.observe({ encoding }, durationSeconds);
      responseSize.set({ encoding }, bytes);
    },
    metricsInFlight: (inFlight) => scrapesInFlight.set(inFlight),
    readThrough: (result, addresses) => {
      if (addresses > 0) changing(() => readThrough.inc({ result }, addresses))();
    },
    persist: {
      persisted: changing((at) => (persistedAt = at)),
      failed: changing((reason) => persistFailures.inc({ reason })),
    },
    connection(event) {
      // Opened and closed change only the gauge, read at the next reading: not a reason to read again.
      if (event === 'opened') connectionsOpen += 1;
      else if (event === 'closed') connectionsOpen -= 1;
      else changing(() => dropped.inc({ reason: event }))();
    },
    staleAnswer: changing((upstream, query) => staleAnswers.inc({ upstream, query })),
    configReloaded: changing((successful) => {
      reloadOk.set(successful ? 1 : 0);
      if (successful) reloadAt.set(wall() / 1000);
    }),
  };
}
