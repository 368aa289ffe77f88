import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { Config } from './config/load.js';
import { createMetricsExposition, type MetricsExposition } from './metrics/exposition.js';
import { createSelfMetrics, type SelfMetrics } from './metrics/registry.js';
import { createWalletSeriesRenderer } from './metrics/wallet-series.js';
import { pollQueueSizes } from './poll/queue-sizes.js';
import { createBatchSize, pollWallets, walletConcurrency, type BatchSize } from './poll/wallets.js';
import { createScheduler, type ScheduledJob, type Scheduler } from './poll/scheduler.js';
import { createPollStatus, type PollStatus } from './poll/status.js';
import { createRoutes } from './serve/routes.js';
import { closeServer, createHttpServer, listen } from './serve/server.js';
import { createSnapshotPersister, type SnapshotPersister } from './snapshot/persist.js';
import { ageSeconds, createSnapshotStore, isFresh, type SnapshotStore } from './snapshot/store.js';
import { createUpstreamClient, type QueryName } from './upstream/client.js';

export interface DaemonDeps {
  readonly config: Config;
  readonly logger: Logger;
  /** The clock, ms since epoch. */
  readonly now: () => number;
  readonly version: string;
  readonly nodeVersion: string;
  /** Tests and the demo pass their own undici dispatcher. */
  readonly dispatcher?: Dispatcher;
  /** Register Node's process_* / nodejs_* metrics (off in tests that run several daemons). */
  readonly defaultMetrics?: boolean;
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
  readonly store: SnapshotStore;
  readonly metrics: MetricsExposition;
  readonly config: () => Config;
}

/** How long in-flight served requests get to finish at shutdown. */
const DRAIN_MS = 3_000;

export function createDaemon(deps: DaemonDeps): Daemon {
  const { logger, now } = deps;
  let config = deps.config;
  const store = createSnapshotStore();
  const status: PollStatus = createPollStatus();
  let persister: SnapshotPersister = createSnapshotPersister({ file: config.snapshot.file, logger: logger.child({ module: 'snapshot' }), now });
  let scheduler: Scheduler | null = null;
  let stopping: Promise<void> | null = null;
  /** Survives reloads (a 414-shrunk size is remembered) unless walletBatchSize itself changes. */
  let batchSize: BatchSize = createBatchSize(config.walletBatchSize);
  let watched: ReadonlySet<string> = new Set(config.watchlist.map((w) => w.raw));

  const fresh = (fetchedAt: number | undefined): boolean => fetchedAt !== undefined && isFresh(fetchedAt, now(), config.snapshot.maxAgeSeconds);
  const fetchedAtOf = (query: QueryName): number | undefined =>
    query === 'queue_sizes' ? store.current().queueSizes?.fetchedAt : store.current().wallets?.fetchedAt;

  const self: SelfMetrics = createSelfMetrics({
    version: deps.version,
    nodeVersion: deps.nodeVersion,
    defaultMetrics: deps.defaultMetrics ?? true,
    health: {
      up(query) {
        if (query === 'wallets' && config.watchlist.length === 0) return undefined;
        return status.get(query).lastOk !== false && fresh(fetchedAtOf(query));
      },
      snapshotAgeSeconds(query) {
        const at = fetchedAtOf(query);
        return at === undefined ? undefined : ageSeconds(at, now());
      },
      lastSuccessAt: (query) => status.get(query).lastSuccessAt ?? fetchedAtOf(query),
      watchlistSize: () => config.watchlist.length,
    },
  });
  const metrics = createMetricsExposition({
    self,
    snapshot: () => store.current(),
    now,
    maxAgeSeconds: () => config.snapshot.maxAgeSeconds,
    wallets: createWalletSeriesRenderer({
      watchlist: () => config.watchlist,
      maxAgeSeconds: () => config.snapshot.maxAgeSeconds,
      testnet: () => config.testnet,
    }),
  });

  const server = createHttpServer({
    logger: logger.child({ module: 'server' }),
    onServed: (endpoint, code) => self.servedRequest(endpoint, code),
    routes: createRoutes({
      version: deps.version,
      now,
      snapshot: () => store.current(),
      config: () => config,
      watched: () => watched,
      nextPollDueAt: (query) => scheduler?.nextRunAt(query) ?? null,
      metrics,
    }),
  });

  function buildScheduler(current: Config): Scheduler {
    const client = createUpstreamClient({
      upstreams: current.upstreams,
      retry: current.retry,
      logger: logger.child({ module: 'upstream' }),
      observer: self.upstream,
      now,
      userAgent: `tonwatch/${deps.version}`,
      dispatcher: deps.dispatcher,
    });
    const pollLogger = logger.child({ module: 'poll' });
    /** A scheduled poll: timed, its outcome recorded (unless it was cut short by a stop). */
    const pollJob = (query: QueryName, cron: string, poll: (signal: AbortSignal) => Promise<{ ok: true } | { ok: false; error: string }>): ScheduledJob => ({
      name: query,
      cron,
      async run(signal) {
        const started = now();
        const outcome = await poll(signal);
        self.observePoll(query, (now() - started) / 1000);
        if (signal.aborted) return;
        const before = status.get(query).lastOk;
        if (outcome.ok) {
          status.succeeded(query, now());
          if (before === false) pollLogger.info({ query }, 'poll recovered');
        } else status.failed(query, outcome.error);
      },
    });
    const persistAfter = (): void => void persister.save(store.current());
    const jobs = [
      pollJob('queue_sizes', current.schedule.queueSizes, (signal) =>
        pollQueueSizes({ client, logger: pollLogger, publish: (snapshot) => (store.replaceQueueSizes(snapshot), persistAfter()) }, signal),
      ),
    ];
    if (current.watchlist.length > 0) {
      jobs.push(
        pollJob('wallets', current.schedule.wallets, (signal) =>
          pollWallets(
            {
              client,
              logger: pollLogger,
              now,
              watchlist: current.watchlist,
              batchSize,
              // The primary upstream's budget: failover is the exception.
              concurrency: walletConcurrency(current.upstreams[0]?.rps ?? 1),
              previous: () => store.current().wallets,
              publish: (snapshot) => (store.replaceWallets(snapshot), persistAfter()),
            },
            signal,
          ),
        ),
      );
    }
    return createScheduler(jobs, logger.child({ module: 'scheduler' }));
  }

  return {
    store,
    metrics,
    config: () => config,
    async start() {
      const loaded = await persister.load();
      if (loaded) {
        if (loaded.queueSizes) store.replaceQueueSizes(loaded.queueSizes);
        if (loaded.wallets) store.replaceWallets(loaded.wallets);
        logger.info(
          { file: config.snapshot.file, queueSizesAgeSeconds: loaded.queueSizes ? ageSeconds(loaded.queueSizes.fetchedAt, now()) : null },
          'loaded the persisted snapshot',
        );
      }
      const address = await listen(server, config.listen.host, config.listen.port);
      scheduler = buildScheduler(config);
      scheduler.start();
      return address;
    },
    async applyConfig(next) {
      if (next.listen.host !== config.listen.host || next.listen.port !== config.listen.port) {
        logger.warn({ listen: next.listen }, 'a new listen address takes effect only after a restart');
      }
      if (next.snapshot.file !== config.snapshot.file) {
        await persister.flush();
        persister = createSnapshotPersister({ file: next.snapshot.file, logger: logger.child({ module: 'snapshot' }), now });
        void persister.save(store.current());
      }
      logger.level = next.log.level;
      if (next.walletBatchSize !== config.walletBatchSize) batchSize = createBatchSize(next.walletBatchSize);
      watched = new Set(next.watchlist.map((w) => w.raw));
      config = next;
      if (scheduler && !stopping) {
        await scheduler.stop();
        scheduler = buildScheduler(next);
        scheduler.start();
      }
      self.configReloaded(true);
      logger.info({ upstreams: next.upstreams.map((u) => u.name), watchlist: next.watchlist.length }, 'configuration reloaded');
    },
    reloadRefused() {
      self.configReloaded(false);
    },
    stop() {
      stopping ??= (async () => {
        const steps: [string, () => Promise<unknown>][] = [
          ['schedules', async () => scheduler?.stop()],
          ['snapshot', async () => persister.save(store.current())],
          ['server', async () => closeServer(server, DRAIN_MS)],
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
