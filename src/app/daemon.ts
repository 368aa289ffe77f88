import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createClusterLink } from '../cluster/link.js';
import type { Config } from '../domain/config.js';
import type { FeatureContext } from '../features/feature.js';
import { createEpisodeLog } from '../log/episodes.js';
import { createMetricsExposition } from '../metrics/exposition.js';
import { createCompressor } from '../metrics/gzip-members.js';
import { createSelfMetrics } from '../metrics/registry.js';
import { createPollStatus } from '../schedule/poll-status.js';
import { closeServer, listen } from '../serve/lifecycle.js';
import { coreRoutes, routeTable } from '../serve/routes.js';
import { createHttpServer } from '../serve/server.js';
import { createTlsServer } from '../serve/tls.js';
import { createFeatureSet, type FeatureSet } from './feature-set.js';
import { createGenerations, type AppGeneration } from './generation.js';

export interface DaemonDeps {
  readonly config: Config;
  readonly logger: Logger;
  /** The process clock (domain/clock.ts): ms, monotonic; what every age inside the process is measured on. */
  readonly now: () => number;
  /** Wall minus process time, ms (domain/clock.ts), for what leaves the process; default 0. */
  readonly wallOffset?: (() => number) | undefined;
  readonly version: string;
  readonly nodeVersion: string;
  /**
   * Called once, a second after the persisted wallets are in: start-up is over. The
   * composition root tunes the process for a long run from here (main.ts).
   */
  readonly startedUp?: (() => void) | undefined;
}

export interface Daemon {
  /** Loads what the features persisted, listens, starts the schedules. Resolves with the bound address. */
  start(): Promise<AddressInfo>;
  /** Applies a new, already validated config without a restart. */
  applyConfig(config: Config): Promise<void>;
  /** Records a refused reload (the old config stays). */
  reloadRefused(): void;
  /** Stops schedules, aborts in-flight requests, persists, drains the server. Idempotent. */
  stop(): Promise<void>;
  /** The config in force. */
  readonly config: () => Config;
}

/** How long in-flight served requests get to finish at shutdown. */
const DRAIN_MS = 3_000;

/**
 * The daemon: the core's parts built once (poll status, the cluster link, self metrics),
 * the features (features/index.ts) made with them and what they declare put in the core's
 * registries (feature-set.ts), the server on the routes of both, and what follows from the
 * config as a generation. The first config and every reload go the same way: a generation
 * built for it, then put in force.
 */
export function createDaemon(deps: DaemonDeps): Daemon {
  const { logger, now } = deps;
  const wallOffset = deps.wallOffset ?? (() => 0);
  let generation: AppGeneration | null = null;
  let running = false;
  let stopping: Promise<void> | null = null;
  const current = (): AppGeneration => {
    if (generation === null) throw new Error('the daemon has no configuration yet');
    return generation;
  };
  const maxAgeSeconds = (): number => current().config.snapshot.maxAgeSeconds;

  const polls = createPollStatus();
  const episodes = createEpisodeLog(logger.child({ module: 'poll' }), now);
  const cluster = createClusterLink({
    settings: deps.config.cluster,
    listenPort: deps.config.listen.port,
    version: deps.version,
    logger,
    episodes,
    now,
    wallOffset,
    watchlist: () => current().config.watchlist,
  });
  const self = createSelfMetrics({
    version: deps.version,
    nodeVersion: deps.nodeVersion,
    now,
    wall: () => now() + wallOffset(),
    // Read at scrape time, once the features (made with the self metrics, below) are.
    health: {
      queries: () => features.health.queries(),
      up: (query) => features.health.up(query),
      snapshotAgeSeconds: (query) => features.health.snapshotAgeSeconds(query),
      lastSuccessAt: (query) => features.health.lastSuccessAt(query),
      watchlistSize: () => current().config.watchlist.length,
      cluster: () => cluster.reading(),
    },
  });
  const ctx: FeatureContext = {
    version: deps.version,
    logger,
    now,
    wallOffset,
    current,
    running: () => running,
    metrics: self.own,
    persisted: self.persist,
    episodes,
    polls,
    cluster,
    provided: { all: (kind) => features.provided(kind) },
    startedUp: deps.startedUp,
  };
  const features: FeatureSet = createFeatureSet(ctx, { polls, maxAgeSeconds });
  self.pollsDeclared(features.alwaysPolled());

  const generationFor = createGenerations({
    logger,
    now,
    wallOffset,
    version: deps.version,
    lag: () => features.provided('upstreamLag'),
    jobsFor: (parts) => features.jobs(parts),
    budgetFor: (upstream) => cluster.budgetFor(upstream),
    observer: {
      request(upstream, query, code, durationSeconds) {
        self.upstream.request(upstream, query, code, durationSeconds);
        features.upstreamRequest(upstream, code, now());
      },
      skipped: (upstream, query, reason) => self.upstream.skipped(upstream, query, reason),
    },
  });
  generation = generationFor(deps.config, null);

  // One bound on compressions in the thread pool for all of /metrics.
  const metrics = createMetricsExposition({ self, now, blocks: () => features.series(), compressor: createCompressor() });
  const server = createHttpServer({
    logger: logger.child({ module: 'server' }),
    tlsServer: createTlsServer,
    web: () => current().config.web,
    onServed: (endpoint, code) => self.servedRequest(endpoint, code),
    limits: () => current().connectionLimits,
    allowedHosts: () => current().allowedHosts,
    onConnection: (event) => self.connection(event),
    now,
    routes: routeTable([
      coreRoutes({
        metrics,
        maxMetricsRequests: () => current().config.listen.maxMetricsRequests,
        onMetricsInFlight: (inFlight) => self.metricsInFlight(inFlight),
        notReady: () => features.notReady(),
        v2Methods: () => Object.assign({}, ...features.provided('v2Methods')) as Record<string, never>,
      }),
      ...features.routes(),
    ]),
  });

  return {
    config: () => current().config,
    async start() {
      // The cluster's Redis client is loaded first; the replica joins once the server listens.
      await cluster.load();
      await features.load();
      const { host, port } = current().config.listen;
      const address = await listen(server, host, port);
      cluster.start();
      features.start();
      // Not `running` yet: a part loaded fresh at start waits for its first tick (a reload polls at once).
      current().scheduler.start();
      running = true;
      return address;
    },
    async applyConfig(config) {
      const before = current();
      const next = generationFor(config, before);
      sayWhatWaitsForRestart(logger, deps.config, config);
      logger.level = config.log.level;
      await before.scheduler.stop();
      // Its liteserver connections; a read-through batch still on it fails and is asked again.
      if (next.client !== before.client) before.client.close();
      generation = next;
      if (running && stopping === null) next.scheduler.start();
      self.configReloaded(true);
      logger.info({ upstreams: config.upstreams.map((u) => u.name), watchlist: config.watchlist.length }, 'configuration reloaded');
    },
    reloadRefused: () => self.configReloaded(false),
    stop() {
      stopping ??= runSteps(logger, [
        ['schedules', () => current().scheduler.stop()],
        // Leaves first, so its wallets go to the others at their next heartbeat rather than after its ttl.
        ['cluster', () => cluster.stop()],
        ...features.stopSteps(),
        ['upstream connections', () => Promise.resolve(current().client.close())],
        ['server', () => closeServer(server, DRAIN_MS)],
      ]);
      return stopping;
    },
  };
}

/** What a reload cannot change without a restart, said: the listen address, whether TLS is on, the cluster section. */
function sayWhatWaitsForRestart(logger: Logger, first: Config, config: Config): void {
  if (config.listen.host !== first.listen.host || config.listen.port !== first.listen.port) {
    logger.warn({ listen: config.listen }, 'a new listen address takes effect only after a restart');
  }
  // Whether the server speaks TLS is fixed when it is built, from the first config.
  const servedWithTls = first.web?.tls ?? null;
  if (((config.web?.tls ?? null) === null) !== (servedWithTls === null)) {
    logger.warn(
      { tls: config.web?.tls ? 'on' : 'off' },
      servedWithTls === null
        ? 'TLS is turned on only by a restart; until then the server stays plain HTTP (basic auth and headers apply now)'
        : 'TLS is turned off only by a restart; until then the server keeps its last certificates (basic auth and headers apply now)',
    );
  }
  if (JSON.stringify(config.cluster) !== JSON.stringify(first.cluster)) logger.warn('a changed cluster section takes effect only after a restart');
}

export type Step = readonly [name: string, run: () => Promise<unknown>];

/** Runs shutdown steps in order; one that fails is logged and the next runs. */
async function runSteps(logger: Logger, steps: readonly Step[]): Promise<void> {
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (err) {
      logger.error({ err, step: name }, 'shutdown step failed');
    }
  }
}
