import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from './domain/config.js';
import type { QueryName } from './domain/queries.js';
import { createMetricsExposition } from './metrics/exposition.js';
import { createSelfMetrics } from './metrics/registry.js';
import { createWalletSeriesRenderer } from './metrics/wallet-series.js';
import { createPollStatus } from './poll/status.js';
import { createLagState } from './poll/lag.js';
import { createReadThrough } from './poll/read-through.js';
import { createRoutes } from './serve/routes.js';
import { closeServer, listen } from './serve/lifecycle.js';
import { createHttpServer } from './serve/server.js';
import { ageSeconds, freshForAll, isFresh } from './snapshot/freshness.js';
import { createSnapshotStore } from './snapshot/store.js';
import { createQueueHistory } from './status/history.js';
import { createUpstreamHealth } from './status/upstream-health.js';
import { createGenerations, type Generation } from './generation.js';
import { createEpisodeLog } from './log/episodes.js';

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

const LOADING_WALLETS: readonly QueryName[] = ['wallets'];
const NOTHING_LOADING: readonly QueryName[] = [];

/** How long in-flight served requests get to finish at shutdown. */
const DRAIN_MS = 3_000;
/** How long after the persisted snapshot is in the upstream client's code is loaded (clear of the start-up answers). */
const PREPARE_AFTER_MS = 1_000;

/**
 * The daemon: snapshot store, pollers, metrics and the HTTP server, wired together. Long-
 * lived parts (store, poll status, metrics, server) are built once; what follows from the
 * configuration is a Generation.
 */
export function createDaemon(deps: DaemonDeps): Daemon {
  const { logger, now } = deps;
  const wallOffset = deps.wallOffset ?? (() => 0);
  const history = createQueueHistory();
  const upstreamHealth = createUpstreamHealth();
  // Every queue snapshot, polled or loaded, also goes into the status page's history.
  const store = createSnapshotStore({ onQueueSizes: (queueSizes) => history.record(queueSizes) });
  const status = createPollStatus();
  const lag = createLagState(logger.child({ module: 'lag' }));
  const fetchedAtOf = (query: QueryName): number | undefined =>
    query === 'queue_sizes' ? store.current().queueSizes?.fetchedAt : store.current().wallets?.fetchedAt;

  const self = createSelfMetrics({
    version: deps.version,
    nodeVersion: deps.nodeVersion,
    now,
    health: {
      up(query) {
        if (query === 'wallets' && current.config.watchlist.length === 0) return undefined;
        const fetchedAt = fetchedAtOf(query);
        return status.get(query).lastOk !== false && fetchedAt !== undefined && isFresh(fetchedAt, now(), current.config.snapshot.maxAgeSeconds);
      },
      snapshotAgeSeconds(query) {
        const fetchedAt = fetchedAtOf(query);
        return fetchedAt === undefined ? undefined : ageSeconds(fetchedAt, now());
      },
      lastSuccessAt: (query) => {
        const at = status.get(query).lastSuccessAt ?? fetchedAtOf(query);
        return at === undefined ? undefined : at + wallOffset();
      },
      watchlistSize: () => current.config.watchlist.length,
      upstreamLags: () => lag.current(),
      maxLagBlocks: () => (current.config.lagCheck.everySeconds > 0 ? current.config.lagCheck.maxLagBlocks : undefined),
      readThroughCacheSize: () => (current.config.readThrough.enabled ? readThrough.size : undefined),
    },
  });
  const metrics = createMetricsExposition({
    self,
    snapshot: () => store.current(),
    now,
    maxAgeSeconds: () => current.config.snapshot.maxAgeSeconds,
    wallets: createWalletSeriesRenderer({
      watchlist: () => current.config.watchlist,
      maxAgeSeconds: () => current.config.snapshot.maxAgeSeconds,
      testnet: () => current.config.testnet,
    }),
  });
  const generationFor = createGenerations({
    logger,
    now,
    wallOffset,
    version: deps.version,
    self,
    store,
    status,
    walletPollDue,
    // Fresh persisted queue sizes (and so the lag check) wait for the first tick: polling at
    // once would load the HTTP client while the first answers wait. The wallet poll at start
    // decides once the wallets file is read (walletPollDue).
    runAtStart: (query) => query === 'wallets' || !startedFresh(query),
    lag,
    episodes: createEpisodeLog(logger.child({ module: 'poll' }), now),
    observer: {
      request(upstream, query, code, durationSeconds) {
        self.upstream.request(upstream, query, code, durationSeconds);
        upstreamHealth.observe(upstream, code, now());
      },
      skipped: (upstream, query, reason) => self.upstream.skipped(upstream, query, reason),
    },
  });

  async function loadPersistedWallets(): Promise<void> {
    try {
      const wallets = await current.persister.loadWallets();
      // A poll cannot have published wallets first (it waits for this), but a reload may have moved the file.
      if (wallets && store.current().wallets === null) {
        store.replaceWallets(wallets);
        logger.info({ wallets: wallets.wallets.size, ageSeconds: ageSeconds(wallets.fetchedAt, now()) }, 'loaded the persisted snapshot (wallet states)');
      }
    } catch (err) {
      logger.error({ err }, 'could not load the persisted wallet states; starting without them');
    }
  }

  /**
   * Whether a wallet poll is due: always, but for the poll at start when the persisted
   * states cover the watchlist and stay fresh until the first tick (a restart does not ask
   * the upstream again for 100,000 states it has just given).
   */
  async function walletPollDue(): Promise<boolean> {
    await walletsLoaded;
    if (walletStartDecided) return true;
    walletStartDecided = true;
    // Requests that waited for the wallets file go first.
    await nextTurn();
    const until = current.scheduler.nextRunAt('wallets') ?? now();
    if (!freshForAll(current.config.watchlist, store.current().wallets?.wallets, until, current.config.snapshot.maxAgeSeconds)) return true;
    logger.info({ nextPollAt: new Date(until + wallOffset()).toISOString() }, 'persisted wallet states stay fresh until the first tick; not polled at start');
    return false;
  }

  /** Whether the part of `query` was loaded from disk at start and is still fresh. */
  function startedFresh(query: QueryName): boolean {
    const fetchedAt = fetchedAtOf(query);
    return !running && fetchedAt !== undefined && isFresh(fetchedAt, now(), current.config.snapshot.maxAgeSeconds);
  }

  let current: Generation = generationFor(deps.config, null);
  /** The TLS settings the server was built with: whether it speaks TLS is fixed until a restart. */
  const servedWithTls = deps.config.web?.tls ?? null;
  const readThrough = createReadThrough({
    client: () => current.client,
    batchSize: () => current.batchSize,
    // A request waits as long as one request to the primary upstream may take.
    settings: () => ({ ...current.config.readThrough, timeoutMs: current.config.upstreams[0]?.timeoutMs ?? 10_000 }),
    now,
    logger: logger.child({ module: 'read-through' }),
    count: (result, addresses) => self.readThrough(result, addresses),
  });
  const server = createHttpServer({
    logger: logger.child({ module: 'server' }),
    web: () => current.config.web,
    onServed: (endpoint, code) => self.servedRequest(endpoint, code),
    limits: () => current.connectionLimits,
    onConnection: (event) => self.connection(event),
    now,
    routes: createRoutes({
      version: deps.version,
      now,
      wallOffset,
      snapshot: () => store.current(),
      settings: () => current.serve,
      loading: () => (walletsLoading ? LOADING_WALLETS : NOTHING_LOADING),
      nextPollDueAt: (query) => current.scheduler.nextRunAt(query),
      metrics,
      onMetricsInFlight: (inFlight) => self.metricsInFlight(inFlight),
      readThrough,
      logger: logger.child({ module: 'status' }),
      status: () => ({
        version: deps.version,
        now: now(),
        snapshot: store.current(),
        maxAgeSeconds: current.config.snapshot.maxAgeSeconds,
        testnet: current.config.testnet,
        watchlist: current.config.watchlist,
        upstreams: current.serve.upstreams,
        upstreamHealth,
        lags: lag.current(),
        history,
      }),
    }),
  });
  /** True while the persisted wallets file is being read at start. */
  let walletsLoading = false;
  let walletsLoaded: Promise<void> = Promise.resolve();
  /** Set by the first wallet poll after start: whether it could wait was decided then. */
  let walletStartDecided = false;
  let running = false;
  let stopping: Promise<void> | null = null;

  /**
   * Loads the code the first poll needs (undici, @ton/core) soon after start, not in that
   * poll while requests are being served; a poll due sooner loads it itself.
   */
  function prepareUpstream(): void {
    if (stopping !== null) return;
    deps.startedUp?.();
    current.client.prepare().then(
      () => logger.debug('loaded the upstream client ahead of the first poll'),
      (err: unknown) => logger.warn({ err }, 'could not load the upstream client ahead of the first poll'),
    );
  }

  return {
    config: () => current.config,
    async start() {
      // The queue sizes first (a few hundred bytes): the v2 endpoint answers from them at once.
      const queueSizes = await current.persister.loadQueueSizes();
      if (queueSizes) {
        store.replaceQueueSizes(queueSizes);
        logger.info({ file: current.config.snapshot.file, ageSeconds: ageSeconds(queueSizes.fetchedAt, now()) }, 'loaded the persisted snapshot (queue sizes)');
      }
      const address = await listen(server, current.config.listen.host, current.config.listen.port);
      // The wallets file (megabytes) is read while the server already answers; the wallet
      // poll waits for it, so its first cycle builds on what was persisted.
      walletsLoading = true;
      walletsLoaded = loadPersistedWallets().finally(() => (walletsLoading = false));
      void walletsLoaded.then(() => setTimeout(prepareUpstream, PREPARE_AFTER_MS).unref());
      // Still not `running` here: startedFresh holds at start only (a reload polls at once).
      current.scheduler.start();
      running = true;
      return address;
    },
    async applyConfig(config) {
      const before = current;
      if (config.listen.host !== before.config.listen.host || config.listen.port !== before.config.listen.port) {
        logger.warn({ listen: config.listen }, 'a new listen address takes effect only after a restart');
      }
      if (((config.web?.tls ?? null) === null) !== (servedWithTls === null)) {
        logger.warn(
          { tls: config.web?.tls ? 'on' : 'off' },
          servedWithTls === null
            ? 'TLS is turned on only by a restart; until then the server stays plain HTTP (basic auth and headers apply now)'
            : 'TLS is turned off only by a restart; until then the server keeps its last certificates (basic auth and headers apply now)',
        );
      }
      const next = generationFor(config, before);
      logger.level = config.log.level;
      await before.scheduler.stop();
      // Its liteserver connections; a read-through batch still on it fails and is asked again.
      if (next.client !== before.client) before.client.close();
      if (next.persister !== before.persister) {
        await before.persister.flush();
        void next.persister.save(store.current());
      }
      current = next;
      if (running && stopping === null) next.scheduler.start();
      self.configReloaded(true);
      logger.info({ upstreams: config.upstreams.map((u) => u.name), watchlist: config.watchlist.length }, 'configuration reloaded');
    },
    reloadRefused() {
      self.configReloaded(false);
    },
    stop() {
      stopping ??= (async () => {
        const steps: [string, () => Promise<unknown>][] = [
          ['schedules', () => current.scheduler.stop()],
          ['read-through', () => Promise.resolve(readThrough.close())],
          ['upstream connections', () => Promise.resolve(current.client.close())],
          ['snapshot', () => current.persister.save(store.current())],
          ['server', () => closeServer(server, DRAIN_MS)],
        ];
        for (const [name, step] of steps) {
          try {
            await step();
          } catch (err) {
            logger.error({ err, step: name }, 'shutdown step failed');
          }
        }
      })();
      return stopping;
    },
  };
}
