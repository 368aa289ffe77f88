import { watchlistKeys } from '../config/watchlist.js';
import type { Config } from '../domain/config.js';
import type { UpstreamClient, UpstreamObserver } from '../domain/upstream.js';
import type { FeatureContext, GenerationParts, UpstreamLagView } from '../features/feature.js';
import { createBatchSize, type BatchSize } from '../accounts/batches.js';
import { createScheduler, type ScheduledJob, type Scheduler } from '../schedule/scheduler.js';
import type { ServeSettings } from '../serve/routes.js';
import type { ConnectionLimits } from '../serve/server.js';
import { createSnapshotPersister, type SnapshotPersister } from '../snapshot/persist.js';
import { createUpstreamClient, type UpstreamClientDeps } from '../upstream/client.js';
import { upstreamLocation, urlBoundOf } from '../upstream/kinds.js';

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
  /** listen's connection bounds, as the server reads them. */
  readonly connectionLimits: ConnectionLimits;
  /** listen.allowedHosts, lowercase. */
  readonly allowedHosts: ReadonlySet<string>;
  /** Each watched wallet's place in the watchlist (the snapshot's order). */
  readonly places: ReadonlyMap<string, number>;
}

/** The daemon's shared parts a generation is built with (logger, clocks, self metrics), and: */
export interface GenerationDeps extends Pick<FeatureContext, 'logger' | 'now' | 'wallOffset' | 'self'> {
  readonly version: string;
  /** Receives every upstream request (metrics and the status page's upstream health). */
  readonly observer: UpstreamObserver;
  /** What the lag check found (kept across reloads); the client passes lagging upstreams over. */
  readonly lag: UpstreamLagView;
  /** An upstream's budget shared by the replicas of a cluster; undefined: the process's own. */
  readonly budgetFor?: UpstreamClientDeps['budgetFor'];
  /** The features' jobs for a configuration (features/). */
  readonly jobsFor: (parts: GenerationParts) => readonly ScheduledJob[];
}

/** What the batch size learnt depends on: the primary upstream's URL when it carries addresses (its proxy sets the request-line limit). */
function batchingKey(config: Config): string {
  return urlBoundOf(config.upstreams[0])?.key ?? '';
}

/** The request line of a batch of walletStates to the primary upstream, when it carries the addresses in its URL. */
function requestLineOf(config: Config): ((count: number) => number) | undefined {
  const bound = urlBoundOf(config.upstreams[0]);
  return bound === undefined ? undefined : (count) => bound.walletStatesLine(count);
}

/**
 * Builds the Generation of a configuration: its upstream client, pollers and schedules,
 * persister and serve settings, keeping what it can of the previous generation.
 */
export function createGenerations(deps: GenerationDeps): (config: Config, previous: Generation | null) => Generation {
  const { logger, now, wallOffset, self } = deps;
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
      budgetFor: deps.budgetFor,
    });
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
      upstreams: config.upstreams.map((u) => ({ name: u.name, url: upstreamLocation(u) })),
      maxMetricsRequests: config.listen.maxMetricsRequests,
      readThrough: { enabled: config.readThrough.enabled, ttlSeconds: config.readThrough.ttlSeconds },
    };
    const client = buildClient(config);
    const { listen } = config;
    const connectionLimits: ConnectionLimits = {
      maxConnections: listen.maxConnections,
      maxConnectionsPerClient: listen.maxConnectionsPerClient ?? Math.max(1, Math.ceil(listen.maxConnections / 2)),
      // The server speaks TLS or not as the first config said; a plain server's timer would cut nothing.
      tlsHandshakeTimeoutMs: config.web?.tls ? listen.tlsHandshakeTimeoutSeconds * 1000 : 0,
      sendTimeoutMs: listen.sendTimeoutSeconds * 1000,
    };
    const allowedHosts: ReadonlySet<string> = new Set(listen.allowedHosts.map((host) => host.toLowerCase()));
    const scheduler = createScheduler(deps.jobsFor({ config, client, persister, batchSize }), logger.child({ module: 'scheduler' }), {
      now,
      wall: () => now() + wallOffset(),
    });
    return { config, serve, persister, batchSize, client, connectionLimits, allowedHosts, scheduler, places: watchlistKeys(config.watchlist) };
  }

  return generationFor;
}
