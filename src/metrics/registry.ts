import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { QUERIES, type QueryName } from '../domain/queries.js';
import type { UpstreamLag, UpstreamObserver } from '../domain/upstream.js';
import { PERSIST_FAILURE_REASONS, type PersistObserver } from '../snapshot/persist.js';
import { labelledReadGauge, readGauge } from './read-gauges.js';

/**
 * Every metric name tonwatch exports, in one place. Chain facts (`ton_*`) are rendered
 * from the snapshot once per poll (queue-series.ts, wallet-series.ts); the daemon's own health (`tonwatch_*`) lives
 * in a prom-client Registry of our own, never the global one.
 */

export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: 'gauge' | 'counter';
}

const gauge = (name: string, help: string): MetricFamily => ({ name, help, type: 'gauge' });

export const CHAIN_METRICS = {
  outMsgQueueSize: gauge('ton_out_msg_queue_size', "Messages in the shard's outbound message queue."),
  extMsgQueueSizeLimit: gauge(
    'ton_ext_msg_queue_size_limit',
    'ext_msg_queue_size_limit as the upstream reports it; above it ordinary external messages are delayed.',
  ),
  outMsgQueuePressureRatio: gauge('ton_out_msg_queue_pressure_ratio', 'Outbound queue size divided by ext_msg_queue_size_limit (absent when the limit is 0).'),
  shardBlockSeqno: gauge('ton_shard_block_seqno', 'Seqno of the shard block the queue size belongs to.'),
  walletBalanceTons: gauge('ton_wallet_balance_tons', 'Wallet balance in TON (nanotons / 1e9).'),
  walletSeqno: gauge('ton_wallet_seqno', 'Wallet seqno (wallet contracts only).'),
  walletLastTransactionLt: gauge('ton_wallet_last_transaction_lt', "Logical time of the account's last transaction."),
  walletStatus: gauge('ton_wallet_status', 'Always 1; the status label carries the account status (active, uninit, frozen, nonexist, unknown).'),
  walletInfo: gauge('ton_wallet_info', 'Always 1; labels describe the wallet.'),
  walletMinBalanceTons: gauge('ton_wallet_min_balance_tons', 'Configured minimum balance in TON (minBalanceTons), for one generic alert rule.'),
  walletExtraCurrencyBalance: gauge('ton_wallet_extra_currency_balance', 'Extra currency balance, raw amount.'),
} as const satisfies Record<string, MetricFamily>;

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

/**
 * Node's own process_* and nodejs_* metrics are gathered at most this often, in ms: they
 * read /proc and work out event-loop delay percentiles, which at hundreds of scrapes a
 * second was most of what a scrape cost beyond sending pre-rendered blocks. tonwatch's
 * own tonwatch_* metrics are read again after anything but a scrape changed them
 * (OWN_METRICS_REUSE_MS).
 */
export const PROCESS_METRICS_EVERY_MS = 1000;

/**
 * A reading of tonwatch's own metrics serves the scrapes that follow it for up to this
 * many ms, as long as nothing but scrapes happened in between: no poll, upstream request,
 * request to another endpoint, reload or read-through. Reading them (prom-client's text
 * for ~100 lines, histograms mostly) and compressing that text took ~0.3 ms of a gzip
 * scrape's ~0.8 ms at 10,000 wallets. What a scrape itself changes (its own count in
 * tonwatch_served_requests_total, the render histogram, the in-flight gauge) and what is
 * read from the daemon's state (snapshot ages, up) shows at most this late.
 */
export const OWN_METRICS_REUSE_MS = 100;

/** The `endpoint` label of /metrics requests in tonwatch_served_requests_total. */
export const METRICS_ENDPOINT = 'metrics';

export function createSelfMetrics(options: {
  version: string;
  nodeVersion: string;
  health: HealthSource;
  defaultMetrics?: boolean;
  /** The clock, ms since epoch (default Date.now). */
  now?: () => number;
}): SelfMetrics {
  const { health } = options;
  const now = options.now ?? Date.now;
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
  let processText: { at: number; text: Promise<Buffer> } | null = null;
  let ownText: { at: number; text: Promise<Buffer> } | null = null;
  /** Something other than a scrape changed the own metrics since ownText was read. */
  let changed = true;

  labelledReadGauge(registers, 'tonwatch_up', '1 when the last poll of the query succeeded and its data is fresh.', 'query', () =>
    QUERIES.map((query) => {
      const up = health.up(query);
      return [query, up === undefined ? undefined : up ? 1 : 0] as const;
    }),
  );
  labelledReadGauge(registers, 'tonwatch_last_success_timestamp_seconds', 'Unix time of the last successful poll of the query.', 'query', () =>
    QUERIES.map((query) => {
      const at = health.lastSuccessAt(query);
      return [query, at === undefined ? undefined : at / 1000] as const;
    }),
  );
  labelledReadGauge(registers, 'tonwatch_snapshot_age_seconds', 'Age of the data now served for the query, in seconds.', 'query', () =>
    QUERIES.map((query) => [query, health.snapshotAgeSeconds(query)] as const),
  );
  readGauge(registers, 'tonwatch_watchlist_size', 'Addresses on the watchlist.', () => health.watchlistSize());
  const pollDuration = new Histogram({
    name: 'tonwatch_poll_duration_seconds',
    help: 'Duration of one poll cycle, retries and budget waits included.',
    labelNames: ['query'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers,
  });
  const upstreamRequests = new Counter({
    name: 'tonwatch_upstream_requests_total',
    help: 'Upstream requests by HTTP status, or by error class when there was no usable response; liteserver calls by ok, error class or liteserver_error_<code>.',
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
  // Counted per request in plain numbers, handed to the counter when it is collected:
  // prom-client hashes a child's labels on every inc(), about 5 % of a v2 request's CPU.
  const servedCounts = new Map<string, Map<number, { pending: number }>>();
  new Counter({
    name: 'tonwatch_served_requests_total',
    help: 'Requests answered by tonwatch, by endpoint and HTTP status.',
    labelNames: ['endpoint', 'code'],
    registers,
    collect() {
      for (const [endpoint, byCode] of servedCounts) {
        for (const [code, count] of byCode) {
          if (count.pending === 0) continue;
          this.inc({ endpoint, code: String(code) }, count.pending);
          count.pending = 0;
        }
      }
    },
  });
  const renderDuration = new Histogram({
    name: 'tonwatch_metrics_render_duration_seconds',
    help: 'Time to make one /metrics body, compression included (pre-rendered blocks are reused, so most scrapes take little); for identity, up to its first byte (its blocks are decompressed as it is sent).',
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
  labelledReadGauge(
    registers,
    'tonwatch_upstream_lag_blocks',
    'Masterchain blocks the upstream is behind the most advanced upstream, at the last lag check.',
    'upstream',
    () => [...health.upstreamLags()].map(([upstream, lag]) => [upstream, lag.lagBlocks] as const),
  );
  labelledReadGauge(
    registers,
    'tonwatch_upstream_indexer_lag_blocks',
    "Masterchain blocks the upstream's v3 indexer is behind its own v2 tip, at the last lag check.",
    'upstream',
    () => [...health.upstreamLags()].map(([upstream, lag]) => [upstream, lag.indexerLagBlocks] as const),
  );
  readGauge(
    registers,
    'tonwatch_upstream_max_lag_blocks',
    'lagCheck.maxLagBlocks: an upstream further behind is skipped (absent while the lag check is off).',
    () => health.maxLagBlocks(),
  );
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
    help: 'Client connections cut or refused: max_connections (past listen.maxConnections), request_timeout (headers or request not sent in time), send_timeout (a response not taken within listen.sendTimeoutSeconds).',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of ['max_connections', 'request_timeout', 'send_timeout']) dropped.inc({ reason }, 0);
  const readThrough = new Counter({
    name: 'tonwatch_read_through_addresses_total',
    help: 'Unwatched addresses asked with read-through: hit (cached), fetched, coalesced (joined a fetch in flight), unknown (the upstream does not know it), refused (past maxPendingAddresses).',
    labelNames: ['result'],
    registers,
  });
  for (const result of ['hit', 'fetched', 'coalesced', 'unknown', 'refused']) readThrough.inc({ result }, 0);
  readGauge(registers, 'tonwatch_read_through_cache_addresses', 'Addresses in the read-through cache (absent while read-through is off).', () =>
    health.readThroughCacheSize(),
  );
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
  reloadAt.setToCurrentTime();
  new Gauge({ name: 'tonwatch_build_info', help: 'Always 1; labels carry the version.', labelNames: ['version', 'node_version'], registers }).set(
    { version: options.version, node_version: options.nodeVersion },
    1,
  );

  // Pre-create the series that must exist from the start, so rate() and alerts see zeros.
  for (const query of QUERIES) pollDuration.zero({ query });

  return {
    registry,
    async texts() {
      const at = now();
      if (processText === null || at - processText.at >= PROCESS_METRICS_EVERY_MS || at < processText.at) {
        processText = { at, text: processRegistry.metrics().then((text) => Buffer.from(text)) };
      }
      if (ownText === null || changed || at - ownText.at >= OWN_METRICS_REUSE_MS || at < ownText.at) {
        changed = false;
        const reading = { at, text: registry.metrics().then((text) => Buffer.from(text)) };
        // A failed reading is not reused.
        reading.text.catch(() => {
          if (ownText === reading) ownText = null;
        });
        ownText = reading;
      }
      return Promise.all([ownText.text, processText.text]);
    },
    upstream: {
      request(upstream, query, code, durationSeconds) {
        changed = true;
        upstreamRequests.inc({ upstream, query, code });
        upstreamDuration.observe({ upstream, query }, durationSeconds);
      },
      skipped(upstream, query, reason) {
        changed = true;
        skipped.inc({ upstream, query, reason });
      },
    },
    observePoll(query, durationSeconds) {
      changed = true;
      pollDuration.observe({ query }, durationSeconds);
    },
    servedRequest(endpoint, code) {
      // A scrape's own count may show a reading late (OWN_METRICS_REUSE_MS); any other request's may not.
      if (endpoint !== METRICS_ENDPOINT) changed = true;
      // One count per (endpoint, code), found without building a key: this runs on every request.
      let byCode = servedCounts.get(endpoint);
      if (byCode === undefined) {
        byCode = new Map();
        servedCounts.set(endpoint, byCode);
      }
      const count = byCode.get(code);
      if (count === undefined) byCode.set(code, { pending: 1 });
      else count.pending += 1;
    },
    metricsRendered(encoding, durationSeconds, bytes) {
      renderDuration.observe({ encoding }, durationSeconds);
      responseSize.set({ encoding }, bytes);
    },
    metricsInFlight: (inFlight) => scrapesInFlight.set(inFlight),
    readThrough: (result, addresses) => {
      if (addresses === 0) return;
      changed = true;
      readThrough.inc({ result }, addresses);
    },
    persist: {
      persisted(at) {
        changed = true;
        persistedAt = at;
      },
      failed(reason) {
        changed = true;
        persistFailures.inc({ reason });
      },
    },
    connection(event) {
      // Opened and closed change only the gauge, read at the next reading: not a reason to read again.
      if (event === 'opened') connectionsOpen += 1;
      else if (event === 'closed') connectionsOpen -= 1;
      else {
        changed = true;
        dropped.inc({ reason: event });
      }
    },
    staleAnswer(upstream, query) {
      changed = true;
      staleAnswers.inc({ upstream, query });
    },
    configReloaded(successful) {
      changed = true;
      reloadOk.set(successful ? 1 : 0);
      if (successful) reloadAt.setToCurrentTime();
    },
  };
}
