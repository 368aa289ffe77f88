import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../domain/config.js';
import { coreHealth } from './core-health.js';
import type { Feature, FeatureContext, FeatureServes, UpstreamLagView } from '../features/feature.js';
import { createFeatures } from '../features/index.js';
import { createClusterLink } from '../cluster/link.js';
import { createGenerations, type Generation } from './generation.js';
import { createEpisodeLog } from '../log/episodes.js';
import { createMetricsExposition } from '../metrics/exposition.js';
import { createCompressor } from '../metrics/gzip-members.js';
import { createSelfMetrics, type HealthSource, type SelfMetrics } from '../metrics/registry.js';
import { createWalletSeriesRenderer } from '../features/wallets/series.js';
import { createPollStatus } from '../schedule/poll-status.js';
import { closeServer, listen } from '../serve/lifecycle.js';
import { createRoutes } from '../serve/routes.js';
import { createHttpServer } from '../serve/server.js';
import { createTlsServer } from '../serve/tls.js';
import { createSnapshotStore, type SnapshotStore } from '../snapshot/store.js';

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
  /** Loads the persisted snapshot, listens, starts the schedules. Resolves with the bound address. */
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
 * The daemon: the shared parts (store, poll status, metrics, server) built once, the
 * features (features/) looped over, and what follows from the configuration as a
 * Generation, replaced whole on reload.
 */
export function createDaemon(deps: DaemonDeps): Daemon {
  const { logger, now } = deps;
  const wallOffset = deps.wallOffset ?? (() => 0);
  let generation: Generation | null = null;
  let running = false;
  let stopping: Promise<void> | null = null;
  const current = (): Generation => {
    if (generation === null) throw new Error('the daemon has no configuration yet');
    return generation;
  };
  const store = createSnapshotStore({ onQueueSizes: (queueSizes) => features.forEach((f) => f.onQueueSizes?.(queueSizes)) });
  const status = createPollStatus();
  const features: Feature[] = [];
  const health = coreHealth(store, status, current, now, wallOffset, () => features.flatMap((f) => (f.polled === undefined ? [] : [f.polled])));
  const self = createSelfMetrics({ version: deps.version, nodeVersion: deps.nodeVersion, now, wall: () => now() + wallOffset(), health });
  const episodes = createEpisodeLog(logger.child({ module: 'poll' }), now);
  const cluster = createClusterLink({
    ...{ settings: deps.config.cluster, listenPort: deps.config.listen.port, version: deps.version, logger, episodes, now, wallOffset, store },
    ...{ watchlist: () => current().config.watchlist, watched: () => current().serve.watched },
  });
  const ctx: FeatureContext = { logger, now, wallOffset, store, status, self, episodes, current, running: () => running, startedUp: deps.startedUp, cluster };
  features.push(...createFeatures(ctx));
  for (const feature of features) Object.assign(health, feature.health);
  const generationFor = createGenerations({
    logger,
    now,
    wallOffset,
    version: deps.version,
    self,
    lag: {
      lagging: (upstream, query) =>
        features.reduce<ReturnType<UpstreamLagView['lagging']>>((found, f) => found ?? f.upstreams?.lagging(upstream, query) ?? null, null),
      lagBlocks: (upstream, query) => Math.max(0, ...features.map((f) => f.upstreams?.lagBlocks(upstream, query) ?? 0)),
    },
    jobsFor: (parts) => features.flatMap((f) => f.jobs?.(parts) ?? []),
    budgetFor: (upstream) => cluster.budgetFor(upstream),
    observer: {
      request(upstream, query, code, durationSeconds) {
        self.upstream.request(upstream, query, code, durationSeconds);
        for (const feature of features) feature.onUpstreamRequest?.(upstream, code, now());
      },
      skipped: (upstream, query, reason) => self.upstream.skipped(upstream, query, reason),
    },
  });
  generation = generationFor(deps.config, null);
  const server = createServerFor(deps, ctx, features, health, self);

  return {
    config: () => current().config,
    async start() {
      for (const feature of features) await feature.load?.();
      const { host, port } = current().config.listen;
      const address = await listen(server, host, port);
      for (const feature of features) feature.start?.();
      // Not `running` yet: a part loaded fresh at start waits for its first tick (a reload polls at once).
      current().scheduler.start();
      running = true;
      return address;
    },
    async applyConfig(config) {
      const next = generationFor(config, current());
      await switchGeneration(logger, current(), next, store, deps.config);
      generation = next;
      if (running && stopping === null) next.scheduler.start();
      self.configReloaded(true);
      logger.info({ upstreams: config.upstreams.map((u) => u.name), watchlist: config.watchlist.length }, 'configuration reloaded');
    },
    reloadRefused: () => self.configReloaded(false),
    stop() {
      stopping ??= runSteps(logger, [
        ['schedules', () => current().scheduler.stop()],
        ...features.map((f): Step => [f.name, () => Promise.resolve(f.stop?.())]),
        ['upstream connections', () => Promise.resolve(current().client.close())],
        ['snapshot', () => current().persister.save(store.current())],
        ['server', () => closeServer(server, DRAIN_MS)],
      ]);
      return stopping;
    },
  };
}

type Step = [name: string, run: () => Promise<unknown>];

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

/** The HTTP server and its routes: the daemon's own (/metrics, /healthz, /readyz) and what the features serve. */
function createServerFor(deps: DaemonDeps, ctx: FeatureContext, features: readonly Feature[], health: HealthSource, self: SelfMetrics) {
  const { current, now, store } = ctx;
  const serves = Object.assign({}, ...features.map((f) => f.serves)) as NonNullable<Feature['serves']>;
  // One bound on compressions in the thread pool for all of /metrics.
  const compressor = createCompressor();
  const metrics = createMetricsExposition({
    self,
    compressor,
    snapshot: () => store.current(),
    now,
    maxAgeSeconds: () => current().config.snapshot.maxAgeSeconds,
    // In a cluster, each replica exports what it owns, and the queue sizes only where it leads.
    queueExported: () => ctx.cluster.leads(),
    wallets: createWalletSeriesRenderer({
      watchlist: () => ctx.cluster.owned(current().config.watchlist),
      maxAgeSeconds: () => current().config.snapshot.maxAgeSeconds,
      testnet: () => current().config.testnet,
      compressor,
    }),
    blocks: (at) => features.flatMap((f) => (f.series === undefined ? [] : [f.series(at)])),
  });
  // Every feature's part of the status page's sources (the status page's own, the jettons').
  const statusParts = () => Object.assign({}, ...features.map((f) => f.serves?.status?.() ?? {})) as Partial<ReturnType<NonNullable<FeatureServes['status']>>>;
  return createHttpServer({
    logger: ctx.logger.child({ module: 'server' }),
    tlsServer: createTlsServer,
    web: () => current().config.web,
    onServed: (endpoint, code) => self.servedRequest(endpoint, code),
    limits: () => current().connectionLimits,
    allowedHosts: () => current().allowedHosts,
    onConnection: (event) => self.connection(event),
    now,
    routes: createRoutes({
      version: deps.version,
      now,
      wallOffset: ctx.wallOffset,
      snapshot: () => store.current(),
      settings: () => current().serve,
      loading: serves.loading ?? (() => []),
      nextPollDueAt: (query) => current().scheduler.nextRunAt(query),
      metrics,
      onMetricsInFlight: (inFlight) => self.metricsInFlight(inFlight),
      ...(serves.readThrough === undefined ? {} : { readThrough: serves.readThrough }),
      routes: features.flatMap((f) => f.serves?.routes ?? []),
      logger: ctx.logger.child({ module: 'status' }),
      status: () => {
        const { config, serve } = current();
        const { upstreamHealth, history, jettons } = statusParts();
        if (upstreamHealth === undefined || history === undefined) throw new Error('no feature serves the status page');
        const parts = { upstreamHealth, history, jettons };
        const common = { version: deps.version, now: now(), snapshot: store.current(), maxAgeSeconds: config.snapshot.maxAgeSeconds };
        return { ...common, ...parts, testnet: config.testnet, watchlist: config.watchlist, upstreams: serve.upstreams, lags: health.upstreamLags() };
      },
    }),
  });
}

/**
 * Hands over from one generation to the next: what cannot change without a restart is
 * said, the old schedules stop, its liteserver connections close, and a moved snapshot
 * file gets the current snapshot.
 */
async function switchGeneration(logger: Logger, before: Generation, next: Generation, store: SnapshotStore, first: Config): Promise<void> {
  const { config } = next;
  if (config.listen.host !== before.config.listen.host || config.listen.port !== before.config.listen.port) {
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
  logger.level = config.log.level;
  if (JSON.stringify(config.cluster) !== JSON.stringify(first.cluster)) logger.warn('a changed cluster section takes effect only after a restart');
  await before.scheduler.stop();
  // Its liteserver connections; a read-through batch still on it fails and is asked again.
  if (next.client !== before.client) before.client.close();
  if (next.persister !== before.persister) {
    await before.persister.flush();
    void next.persister.save(store.current());
  }
}
