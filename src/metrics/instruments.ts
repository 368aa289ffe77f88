import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { PERSIST_FAILURE_REASONS } from '../snapshot/persist-faults.js';
import { CONNECTION_DROPS } from '../domain/connections.js';

/** The upstream side: polls, requests, and answers passed over or refused. */
function upstreamInstruments(registers: Registry[]) {
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
  return { pollDuration, upstreamRequests, upstreamDuration, skipped, staleAnswers };
}

/** The /metrics endpoint's own: render time, body size, scrapes in flight. */
function exportInstruments(registers: Registry[]) {
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
  return { renderDuration, responseSize, scrapesInFlight };
}

/** The rest of the daemon: snapshot writes, client connections, configuration reloads, and the build. */
function daemonInstruments(registers: Registry[], build: { readonly version: string; readonly nodeVersion: string }) {
  const persistFailures = new Counter({
    name: 'tonwatch_snapshot_persist_failures_total',
    help: 'Writes of a snapshot file that failed, by reason: read_only, disk_full, permission, not_a_file (the path is a folder, or its folder a file), other.',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of PERSIST_FAILURE_REASONS) persistFailures.inc({ reason }, 0);
  const dropped = new Counter({
    name: 'tonwatch_http_connections_dropped_total',
    help:
      'Client connections cut or refused: idle_evicted (an idle connection closed to make room at listen.maxConnections), max_connections ' +
      '(refused: every slot mid-request), max_connections_per_client (refused: every connection of its address mid-request), ' +
      'tls_handshake_timeout, request_timeout (headers or request not sent in time), send_timeout (a response not taken in time).',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of CONNECTION_DROPS) dropped.inc({ reason }, 0);
  const reloadOk = new Gauge({
    name: 'tonwatch_config_last_reload_successful',
    help: '1 when the last configuration (re)load succeeded, 0 when it was refused.',
    registers,
  });
  const reloadAt = new Gauge({
    name: 'tonwatch_config_last_reload_success_timestamp_seconds',
    help: 'Unix time of the last successful configuration (re)load.',
    registers,
  });
  new Gauge({ name: 'tonwatch_build_info', help: 'Always 1; labels carry the version.', labelNames: ['version', 'node_version'], registers }).set(
    { version: build.version, node_version: build.nodeVersion },
    1,
  );
  return { persistFailures, dropped, reloadOk, reloadAt };
}

/**
 * The daemon's own counters, histograms and gauges that are set as things happen (those read
 * from its state are in health-gauges.ts): every tonwatch_* name with its help, in one place.
 * Series that alerts and rate() read are made at zero from the start.
 */
export function createInstruments(registers: Registry[], build: { readonly version: string; readonly nodeVersion: string }) {
  return { ...upstreamInstruments(registers), ...exportInstruments(registers), ...daemonInstruments(registers, build) };
}
