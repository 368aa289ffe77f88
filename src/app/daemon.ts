import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createClusterLink, type ClusterLink } from '../cluster/link.js';
import type { Config } from '../domain/config.js';
import type { FeatureContext } from '../features/feature.js';
import { createEpisodeLog } from '../log/episodes.js';
import { createSelfMetrics, type SelfMetrics } from '../metrics/registry.js';
import { createPollStatus } from '../schedule/poll-status.js';
import { closeServer, listen } from '../serve/lifecycle.js';
import { createFeatureSet, type FeatureSet } from './feature-set.js';
import { createDaemonServer } from './server.js';
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
  const polls = createPollStatus();
  const episodes = createEpisodeLog(logger.child({ module: 'poll' }), now);
  const cluster = clusterLinkOf(deps, { episodes, wallOffset, watchlist: () => current().config.watchlist });
  // The self metrics read the features' polls at scrape time, once the features (made with them, below) are.
  const self = selfMetricsOf(deps, { wallOffset, current, cluster, features: () => features });
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
  const features: FeatureSet = createFeatureSet(ctx, { polls, maxAgeSeconds: () => current().config.snapshot.maxAgeSeconds });
  self.pollsDeclared(features.alwaysPolled());
  const generationFor = generationsOf({ deps, wallOffset, self, features, cluster });
  generation = generationFor(deps.config, null);
  const server = createDaemonServer({ logger, now, current, self, features });

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
      const next = generationFor(config, current());
      await handOver(logger, deps.config, current(), next);
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

/** The link to the cluster (inert without a `cluster` section), on the first config's settings: a reload cannot change them. */
function clusterLinkOf(
  deps: DaemonDeps,
  parts: { readonly episodes: ReturnType<typeof createEpisodeLog>; readonly wallOffset: () => number; readonly watchlist: () => Config['watchlist'] },
): ClusterLink {
  return createClusterLink({
    settings: deps.config.cluster,
    listenPort: deps.config.listen.port,
    version: deps.version,
    logger: deps.logger,
    episodes: parts.episodes,
    now: deps.now,
    wallOffset: parts.wallOffset,
    watchlist: parts.watchlist,
  });
}

/** How the daemon builds a generation: the features' jobs, their verdicts on lagging upstreams, and every upstream request counted. */
function generationsOf(parts: {
  readonly deps: DaemonDeps;
  readonly wallOffset: () => number;
  readonly self: SelfMetrics;
  readonly features: FeatureSet;
  readonly cluster: ClusterLink;
}): ReturnType<typeof createGenerations> {
  const { deps, self, features, cluster } = parts;
  return createGenerations({
    logger: deps.logger,
    now: deps.now,
    wallOffset: parts.wallOffset,
    version: deps.version,
    lag: () => features.provided('upstreamLag'),
    jobsFor: (generation) => features.jobs(generation),
    budgetFor: (upstream) => cluster.budgetFor(upstream),
    observer: {
      request(upstream, query, code, durationSeconds) {
        self.upstream.request(upstream, query, code, durationSeconds);
        features.upstreamRequest(upstream, code, deps.now());
      },
      skipped: (upstream, query, reason) => self.upstream.skipped(upstream, query, reason),
    },
  });
}

/** The self metrics: the core's, and the features' polls read from the feature set once it is made. */
function selfMetricsOf(
  deps: DaemonDeps,
  parts: { wallOffset: () => number; current: () => AppGeneration; cluster: ClusterLink; features: () => FeatureSet },
): SelfMetrics {
  const { current, cluster, features } = parts;
  return createSelfMetrics({
    version: deps.version,
    nodeVersion: deps.nodeVersion,
    now: deps.now,
    wall: () => deps.now() + parts.wallOffset(),
    health: {
      queries: () => features().health.queries(),
      up: (query) => features().health.up(query),
      snapshotAgeSeconds: (query) => features().health.snapshotAgeSeconds(query),
      lastSuccessAt: (query) => features().health.lastSuccessAt(query),
      watchlistSize: () => current().config.watchlist.length,
      cluster: () => cluster.reading(),
    },
  });
}

/**
 * From one generation to the next: what waits for a restart is said, the log level applies,
 * the old schedules stop and the old client's connections close (a read-through batch still
 * on it fails and is asked again).
 */
async function handOver(logger: Logger, first: Config, before: AppGeneration, next: AppGeneration): Promise<void> {
  sayWhatWaitsForRestart(logger, first, next.config);
  logger.level = next.config.log.level;
  await before.scheduler.stop();
  if (next.client !== before.client) before.client.close();
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
