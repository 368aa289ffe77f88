import type { Logger } from 'pino';
import { watchlistKeys } from '../config/watchlist.js';
import type { Config } from '../domain/config.js';
import type { UpstreamObserver } from '../domain/upstream.js';
import type { Generation, GenerationParts } from '../features/feature.js';
import type { UpstreamLagView } from '../features/provisions.js';
import { createBatchSize } from '../accounts/batches.js';
import { createScheduler, type ScheduledJob } from '../schedule/scheduler.js';
import type { ConnectionLimits } from '../serve/limits.js';
import { createUpstreamClient, type UpstreamClientDeps } from '../upstream/client.js';
import { urlBoundOf } from '../upstream/kinds.js';

/**
 * Everything that follows from one configuration: what the features are given (Generation)
 * and what the server reads. A reload builds the next one and replaces it whole; closures
 * read it only through `current`, never a part of it kept aside.
 */
export interface AppGeneration extends Generation {
  /** listen's connection bounds, as the server reads them. */
  readonly connectionLimits: ConnectionLimits;
  /** listen.allowedHosts, lowercase. */
  readonly allowedHosts: ReadonlySet<string>;
}

export interface GenerationDeps {
  readonly logger: Logger;
  /** The process clock (domain/clock.ts). */
  readonly now: () => number;
  /** Wall minus process time, ms. */
  readonly wallOffset: () => number;
  readonly version: string;
  /** Receives every upstream request (metrics, the status page's upstream health). */
  readonly observer: UpstreamObserver;
  /** Which upstreams are behind (what the features provide; kept across reloads): the client passes them over. */
  readonly lag: () => readonly UpstreamLagView[];
  /** An upstream's budget shared by the replicas of a cluster; undefined: the process's own. */
  readonly budgetFor?: UpstreamClientDeps['budgetFor'];
  /** The features' jobs for a configuration. */
  readonly jobsFor: (generation: GenerationParts) => readonly ScheduledJob[];
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

/** The connection bounds the server reads, from `listen`. */
function connectionLimitsOf(config: Config): ConnectionLimits {
  const { listen } = config;
  return {
    maxConnections: listen.maxConnections,
    maxConnectionsPerClient: listen.maxConnectionsPerClient ?? Math.max(1, Math.ceil(listen.maxConnections / 2)),
    // The server speaks TLS or not as the first config said; a plain server's timer would cut nothing.
    tlsHandshakeTimeoutMs: config.web?.tls ? listen.tlsHandshakeTimeoutSeconds * 1000 : 0,
    sendTimeoutMs: listen.sendTimeoutSeconds * 1000,
  };
}

/**
 * Builds the generation of a configuration: its upstream client, the features' jobs on one
 * scheduler, the server's bounds, keeping what it can of the previous generation (the
 * batch size learnt, unless what it depends on changed).
 */
export function createGenerations(deps: GenerationDeps): (config: Config, previous: AppGeneration | null) => AppGeneration {
  const { logger, now, wallOffset } = deps;
  const lagging: NonNullable<UpstreamClientDeps['lagging']> = (upstream, query) => {
    for (const view of deps.lag()) {
      const reason = view.lagging(upstream, query);
      if (reason !== null) return reason;
    }
    return null;
  };
  return (config, previous) => {
    const batchSize =
      previous !== null && previous.config.walletBatchSize === config.walletBatchSize && batchingKey(previous.config) === batchingKey(config)
        ? previous.batchSize
        : createBatchSize(config.walletBatchSize, now, requestLineOf(config));
    const client = createUpstreamClient({
      upstreams: config.upstreams,
      retry: config.retry,
      logger: logger.child({ module: 'upstream' }),
      observer: deps.observer,
      now,
      wall: () => now() + wallOffset(),
      userAgent: `tonwatch/${deps.version}`,
      lagging,
      lagBlocks: (upstream, query) => Math.max(0, ...deps.lag().map((view) => view.lagBlocks(upstream, query))),
      budgetFor: deps.budgetFor,
    });
    const parts: GenerationParts = { config, client, batchSize, watched: watchlistKeys(config.watchlist) };
    const scheduler = createScheduler(deps.jobsFor(parts), logger.child({ module: 'scheduler' }), { now, wall: () => now() + wallOffset() });
    return {
      ...parts,
      scheduler,
      connectionLimits: connectionLimitsOf(config),
      allowedHosts: new Set(config.listen.allowedHosts.map((host) => host.toLowerCase())),
    };
  };
}
