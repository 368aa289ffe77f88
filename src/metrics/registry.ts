import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { ConnectionDrop } from '../domain/connections.js';
import type { UpstreamObserver } from '../domain/upstream.js';
import type { PersistObserver } from '../snapshot/persist-faults.js';
import { labelledReadGauge, readGauge } from './read-gauges.js';
import { registerHealthGauges, type HealthSource } from './health-gauges.js';
import { createInstruments } from './instruments.js';
import { createReadings } from './readings.js';
import { createServedCounts } from './served-counts.js';

/**
 * tonwatch's own metrics (`tonwatch_*`), in a prom-client Registry of our own, never the
 * global one: the core's (instruments.ts, health-gauges.ts) and each feature's (OwnMetrics).
 * Chain facts (`ton_*`) are the features' series, rendered once per poll (exposition.ts).
 */

export type { MetricFamily } from './catalogue.js';

export type { HealthSource } from './health-gauges.js';

/**
 * The metrics a feature keeps of its own, beside the core's it feeds. A name taken twice is
 * refused when it is registered, at start.
 */
export interface OwnMetrics {
  /** A counter; its series exist at zero from the start for each of `zeroes` (label values, in labelNames' order). */
  counter(family: OwnFamily, zeroes?: readonly (readonly string[])[]): (labels: readonly string[], by?: number) => void;
  /** A gauge read when /metrics is rendered: a value, one series per label value, or none (undefined: absent). */
  gauge(family: OwnFamily, read: () => number | undefined | Iterable<readonly [string, number | undefined]>): void;
  /** One poll of `query` took `durationSeconds`. */
  observePoll(query: string, durationSeconds: number): void;
  /** An upstream's answer older than the data served (never backwards): not applied. */
  staleAnswer(upstream: string, query: string): void;
}

export interface OwnFamily {
  readonly name: string;
  readonly help: string;
  /** At most one label for a gauge. */
  readonly labelNames?: readonly string[];
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
  /** What features are given of it. */
  readonly own: OwnMetrics;
  /** Makes the poll-duration series of `queries` exist from now, at zero, so rate() and alerts see zeros before their first poll. */
  pollsDeclared(queries: readonly string[]): void;
  servedRequest(endpoint: string, code: number): void;
  configReloaded(successful: boolean): void;
  /** One /metrics body made: its encoding, how long it took (seconds) and its size (bytes). */
  metricsRendered(encoding: 'gzip' | 'identity', durationSeconds: number, bytes: number): void;
  /** The number of /metrics requests being answered now. */
  metricsInFlight(inFlight: number): void;
  /** How writes of the snapshot files go. */
  readonly persist: PersistObserver;
  /** A connection opened or closed, or why one was cut or refused. */
  connection(event: 'opened' | 'closed' | ConnectionDrop): void;
}

export { OWN_METRICS_REUSE_MS, PROCESS_METRICS_EVERY_MS } from './readings.js';

/** The `endpoint` label of /metrics requests in tonwatch_served_requests_total. */
export const METRICS_ENDPOINT = 'metrics';

/** Node's process metrics (none when `defaults` is false), in a registry of their own. */
function processMetrics(defaults: boolean): Registry {
  const processRegistry = new Registry();
  if (!defaults) return processRegistry;
  collectDefaultMetrics({ register: processRegistry });
  // Gauges named *_total break the exposition conventions (promtool check metrics flags
  // them); process_* and the rest of nodejs_* stay.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    processRegistry.removeSingleMetric(name);
  }
  return processRegistry;
}

/** What features are given: counters and read gauges of their own in tonwatch's registry, and the core's poll and stale-answer instruments. */
function createOwnMetrics(
  registers: Registry[],
  instruments: ReturnType<typeof createInstruments>,
  changing: ReturnType<typeof createReadings>['changing'],
): OwnMetrics {
  return {
    counter(family, zeroes = []) {
      const counter = new Counter({ name: family.name, help: family.help, labelNames: [...(family.labelNames ?? [])], registers });
      const labelsOf = (values: readonly string[]): Record<string, string> =>
        Object.fromEntries((family.labelNames ?? []).map((name, i) => [name, values[i] ?? '']));
      for (const values of zeroes) counter.inc(labelsOf(values), 0);
      return (values, by = 1) => {
        if (by > 0) changing(() => counter.inc(labelsOf(values), by))();
      };
    },
    gauge(family, read) {
      const [label] = family.labelNames ?? [];
      if (label === undefined) readGauge(registers, family.name, family.help, read as () => number | undefined);
      else labelledReadGauge(registers, family.name, family.help, label, read as () => Iterable<readonly [string, number | undefined]>);
    },
    observePoll: changing((query, durationSeconds) => instruments.pollDuration.observe({ query }, durationSeconds)),
    staleAnswer: changing((upstream, query) => instruments.staleAnswers.inc({ upstream, query })),
  };
}

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
  const processRegistry = processMetrics(options.defaultMetrics !== false);
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
    own: createOwnMetrics(registers, instruments, changing),
    pollsDeclared: changing((queries) => {
      for (const query of queries) instruments.pollDuration.zero({ query });
    }),
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
    configReloaded: changing((successful) => {
      instruments.reloadOk.set(successful ? 1 : 0);
      if (successful) instruments.reloadAt.set(wall() / 1000);
    }),
  };
}
