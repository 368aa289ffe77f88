import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import { redactUrl } from './config/redact.js';
import { upstreamLocation, type Config } from './domain/config.js';
import type { QueryName } from './domain/queries.js';
import type { SelfMetrics } from './metrics/registry.js';
import { createBatchSize, type BatchSize } from './poll/batches.js';
import { pollQueueSizes } from './poll/queue-sizes.js';
import { createScheduler, type ScheduledJob, type Scheduler } from './poll/scheduler.js';
import type { PollStatus } from './poll/status.js';
import { pollWallets, walletConcurrency } from './poll/wallets.js';
import { checkLag, type LagState } from './poll/lag.js';
import { lagCheckCron } from './config/schema.js';
import { watchlistKeys } from './config/watchlist.js';
import { isFresh } from './snapshot/freshness.js';
import type { ServeSettings } from './serve/routes.js';
import type { ConnectionLimits } from './serve/server.js';
import { createSnapshotPersister, type SnapshotPersister } from './snapshot/persist.js';
import type { SnapshotStore } from './snapshot/store.js';
import { createUpstreamClient, walletStatesRequestLineBytes } from './upstream/client.js';
import type { UpstreamClient, UpstreamObserver } from './domain/upstream.js';
import type { EpisodeLog } from './log/episodes.js';

/**
 * Everything that follows from one configuration. applyConfig builds the next one and
 * replaces it whole; closures read it only through `current`, never a part of it kept aside.
 */
export interface Generation {
  readonly config: Config;
  readonly serve: ServeSettings;
  readonly persister: SnapshotPersister;
  /** Kept across reloads (a 414-shrunk size is remembered) unless walletBatchSize itself changes. */
  readonly batchSize: BatchSize;
  /** Built with the generation, started by start() (or by applyConfig once running). */
  readonly scheduler: Scheduler;
  /** The upstream client the polls use; read-through asks through it too. */
  readonly client: UpstreamClient;
  /** listen.maxConnections and sendTimeoutSeconds, as the server reads them. */
  readonly connectionLimits: ConnectionLimits;
}

export interface GenerationDeps {
  readonly logger: Logger;
  /** The process clock (domain/clock.ts). */
  readonly now: () => number;
  /** Wall minus process time, ms (domain/clock.ts). */
  readonly wallOffset: () => number;
  readonly version: string;
  readonly self: SelfMetrics;
  readonly store: SnapshotStore;
  readonly status: PollStatus;
  /**
   * Asked before each wallet poll: waits for the persisted wallets file to be read, then
   * says whether the poll is due (false only for the poll at start, when the wallet states
   * read from the file stay fresh until the first tick).
   */
  readonly walletPollDue: () => Promise<boolean>;
  /** Whether a query's poll runs at once when the scheduler starts, or waits for its first tick. */
  readonly runAtStart: (query: QueryName) => boolean;
  /** Receives every upstream request (metrics and the status page's upstream health). */
  readonly observer: UpstreamObserver;
  /** What the lag check found (kept across reloads); the client passes lagging upstreams over. */
  readonly lag: LagState;
  /** Poll failures are logged once per episode (kept across reloads). */
  readonly episodes: EpisodeLog;
}

/** What the batch size learnt depends on: the primary upstream's URL (an upstream's proxy sets the request-line limit). */
function batchingKey(config: Config): string {
  const primary = config.upstreams[0];
  return primary?.kind === 'http' ? primary.url : '';
}

/** The request line of a batch of walletStates to the primary upstream, when it carries the addresses in its URL. */
function requestLineOf(config: Config): ((count: number) => number) | undefined {
  const primary = config.upstreams[0];
  return primary?.kind === 'http' ? (count) => walletStatesRequestLineBytes(primary.url, count) : undefined;
}

/**
 * Builds the Generation of a configuration: its upstream client, pollers and schedules,
 * persister and serve settings, keeping what it can of the previous generation.
 */
export function createGenerations(deps: GenerationDeps): (config: Config, previous: Generation | null) => Generation {
  const { logger, now, wallOffset, self, store, status } = deps;
  const pollLogger = logger.child({ module: 'poll' });
  /** Kept across reloads: an episode of failures goes on through one. */
  const { episodes } = deps;

  /** A scheduled poll: timed, its outcome recorded (unless it was cut short by a stop, or `due` said it was not due). */
  function pollJob(
    query: QueryName,
    cron: string,
    poll: (signal: AbortSignal) => Promise<{ ok: true } | { ok: false; error: string }>,
    due?: () => Promise<boolean>,
  ): ScheduledJob {
    return {
      name: query,
      cron,
      runAtStart: () => deps.runAtStart(query),
      async run(signal) {
        if (due !== undefined && !(await due())) return;
        const started = now();
        const outcome = await poll(signal);
        self.observePoll(query, (now() - started) / 1000);
        if (signal.aborted) return;
        if (!outcome.ok) {
          status.failed(query);
          episodes.failed(query, { query, err: outcome.error }, 'poll failing; keeping the last snapshot');
          return;
        }
        episodes.ok(query, { query }, 'poll recovered');
        status.succeeded(query, now());
      },
    };
  }

  function buildClient(config: Config): UpstreamClient {
    return createUpstreamClient({
      upstreams: config.upstreams,
      retry: config.retry,
      logger: logger.child({ module: 'upstream' }),
      observer: deps.observer,
      now,
      wall: () => now() + wallOffset(),
      userAgent: `tonwatch/${deps.version}`,
      lagging: (upstream, query) => deps.lag.lagging(upstream, query),
      lagBlocks: (upstream, query) => deps.lag.lagBlocks(upstream, query),
    });
  }

  function buildScheduler(config: Config, client: UpstreamClient, persister: SnapshotPersister, batchSize: BatchSize): Scheduler {
    const persist = (): void => void persister.save(store.current());
    const jobs = [
      pollJob('queue_sizes', config.schedule.queueSizes, (signal) =>
        pollQueueSizes(
          {
            client,
            logger: pollLogger,
            publish(snapshot) {
              store.replaceQueueSizes(snapshot);
              persist();
            },
            held: () => {
              const held = store.current().queueSizes;
              return held !== null && isFresh(held.fetchedAt, now(), config.snapshot.maxAgeSeconds) ? held : null;
            },
            stale: (upstream) => self.staleAnswer(upstream, 'queue_sizes'),
          },
          signal,
        ),
      ),
    ];
    if (config.watchlist.length > 0) {
      jobs.push(
        pollJob(
          'wallets',
          config.schedule.wallets,
          async (signal) => {
            // One turn of the event loop first: requests that waited for the wallets file are
            // answered before the poll loads the HTTP client and encodes its first batch.
            await nextTurn();
            return pollWallets(
              {
                client,
                logger: pollLogger,
                now,
                watchlist: config.watchlist,
                batchSize,
                // The primary upstream's budget: failover is the exception.
                concurrency: walletConcurrency(config.upstreams[0]?.rps ?? 1),
                previous: () => store.current().wallets,
                publish(snapshot) {
                  store.replaceWallets(snapshot);
                  persist();
                },
                // A record still served (fresh) holds back an older state of its wallet.
                heldFrom: () => now() - config.snapshot.maxAgeSeconds * 1000,
                stale: (upstream) => self.staleAnswer(upstream, 'wallets'),
                episodes,
              },
              signal,
            );
          },
          deps.walletPollDue,
        ),
      );
    }
    const lagCron = lagCheckCron(config.lagCheck.everySeconds);
    if (lagCron) {
      jobs.push({
        name: 'lag_check',
        cron: lagCron,
        // With the queue poll: while fresh persisted queue sizes are served until the first
        // tick, the tips can wait for theirs too (asking them would load the HTTP client
        // while the first answers wait).
        runAtStart: () => deps.runAtStart('queue_sizes'),
        async run(signal) {
          await checkLag({ client, state: deps.lag, maxLagBlocks: config.lagCheck.maxLagBlocks, logger: pollLogger }, signal);
        },
      });
    }
    return createScheduler(jobs, logger.child({ module: 'scheduler' }), { now, wall: () => now() + wallOffset() });
  }

  /** The generation for `config`, keeping what it can of the previous one. */
  function generationFor(config: Config, previous: Generation | null): Generation {
    const persister =
      previous !== null && previous.config.snapshot.file === config.snapshot.file
        ? previous.persister
        : createSnapshotPersister({ file: config.snapshot.file, logger: logger.child({ module: 'snapshot' }), now, wallOffset, observer: self.persist });
    const batchSize =
      previous !== null && previous.config.walletBatchSize === config.walletBatchSize && batchingKey(previous.config) === batchingKey(config)
        ? previous.batchSize
        : createBatchSize(config.walletBatchSize, now, requestLineOf(config));
    const serve: ServeSettings = {
      maxAgeSeconds: config.snapshot.maxAgeSeconds,
      testnet: config.testnet,
      watched: watchlistKeys(config.watchlist),
      upstreams: config.upstreams.map((u) => ({ name: u.name, url: u.kind === 'http' ? redactUrl(u.url) : upstreamLocation(u) })),
      maxMetricsRequests: config.listen.maxMetricsRequests,
      readThrough: { enabled: config.readThrough.enabled, ttlSeconds: config.readThrough.ttlSeconds },
    };
    const client = buildClient(config);
    const connectionLimits = { maxConnections: config.listen.maxConnections, sendTimeoutMs: config.listen.sendTimeoutSeconds * 1000 };
    return { config, serve, persister, batchSize, client, connectionLimits, scheduler: buildScheduler(config, client, persister, batchSize) };
  }

  return generationFor;
}
