import type { Logger } from 'pino';
import type { QueryName } from '../domain/queries.js';
import type { EpisodeLog } from '../log/episodes.js';
import type { HealthSource, SelfMetrics } from '../metrics/registry.js';
import type { LagState } from './lag-check/lag.js';
import type { ScheduledJob } from '../schedule/scheduler.js';
import type { PollStatus } from '../schedule/poll-status.js';
import type { Route } from '../serve/server.js';
import type { ReadThroughLookup } from './wallets/v3.js';
import type { SnapshotStore } from '../snapshot/store.js';
import type { QueueSizesSnapshot } from '../snapshot/types.js';
import type { StatusSources } from './status-page/model.js';
import type { Generation } from '../app/generation.js';
import type { ClusterLink } from '../cluster/link.js';

/**
 * A feature of the daemon as one module: what it schedules, what it reports, what it
 * adds to the served routes, and what it does at start, reload and stop. The daemon builds
 * the shared parts (FeatureContext), then loops over the features (features/index.ts).
 */
export interface Feature {
  readonly name: string;
  /** Jobs for the scheduler of a configuration; asked once per generation. */
  jobs?(generation: GenerationParts): readonly ScheduledJob[];
  /** Self-metric readings it owns; the rest of HealthSource is the daemon's. */
  readonly health?: Partial<HealthSource>;
  /** What the served routes take from it. */
  readonly serves?: FeatureServes;
  /** Before the server listens: what must be served from the first request. */
  load?(): Promise<void>;
  /** Once the server listens. */
  start?(): void;
  /** At shutdown, before the snapshot is persisted; each step is awaited in turn. */
  stop?(): Promise<void> | void;
  /** Hears every queue-size snapshot, polled or loaded. */
  onQueueSizes?(snapshot: QueueSizesSnapshot): void;
  /** Hears every upstream request's outcome. */
  onUpstreamRequest?(upstream: string, code: string, at: number): void;
  /** Which upstreams the client passes over, and how far behind they are (the lag check). */
  readonly upstreams?: UpstreamLagView;
  /** Chain series it renders itself (one block of exposition text, the same Buffer while unchanged). */
  series?(now: number): Buffer;
  /** For a query it polls beyond the two the store holds: whether it is polled now, and when its data was fetched. */
  readonly polled?: PolledQuery;
}

/** A query a feature polls and keeps itself (jetton_wallets). */
export interface PolledQuery {
  readonly query: QueryName;
  /** False when the configuration gives it nothing to poll: then it has no tonwatch_up series. */
  active(): boolean;
  /** When the data it serves was fetched (process clock); undefined when it has none. */
  fetchedAt(): number | undefined;
}

/** Why an upstream is passed over for a query (null: it is not), and its lag in blocks (0 when not known). */
export type UpstreamLagView = Pick<LagState, 'lagging' | 'lagBlocks'>;

export interface FeatureServes {
  /** Queries whose persisted part is still being read (503 with Retry-After: 1 meanwhile). */
  readonly loading?: () => readonly QueryName[];
  /** walletStates for unwatched addresses. */
  readonly readThrough?: ReadThroughLookup;
  /** The status page's sources beyond the snapshot and the config. */
  readonly status?: () => Partial<Pick<StatusSources, 'upstreamHealth' | 'history' | 'jettons'>>;
  /** Routes of its own (path → route). */
  readonly routes?: readonly (readonly [string, Route])[];
}

/** What a generation gives the jobs it schedules. */
export type GenerationParts = Pick<Generation, 'config' | 'client' | 'persister' | 'batchSize'>;

/** The parts every feature shares, built once by the daemon. */
export interface FeatureContext {
  readonly logger: Logger;
  /** The process clock (domain/clock.ts). */
  readonly now: () => number;
  /** Wall minus process time, ms (domain/clock.ts). */
  readonly wallOffset: () => number;
  readonly store: SnapshotStore;
  readonly status: PollStatus;
  readonly self: SelfMetrics;
  /** Poll failures logged once per episode (kept across reloads). */
  readonly episodes: EpisodeLog;
  /** The generation in force: its config, client, scheduler, persister. */
  readonly current: () => Generation;
  /** False until the daemon has started its schedules; a reload polls at once after that. */
  readonly running: () => boolean;
  /** The replicas this process is one of (cluster/), or one process alone: what it owns, whether it leads. */
  readonly cluster: ClusterLink;
  /** Told once the daemon's start-up work is done (DaemonDeps.startedUp). */
  readonly startedUp?: (() => void) | undefined;
}

/**
 * A scheduled poll of `query`: timed, its outcome recorded in the poll status and logged
 * once per episode of failures (unless it was cut short by a stop, or `due` said it was
 * not due).
 */
export function pollJob(
  ctx: FeatureContext,
  query: QueryName,
  cron: string,
  options: { runAtStart?: () => boolean; due?: (signal: AbortSignal) => Promise<boolean> },
  poll: (signal: AbortSignal) => Promise<{ ok: true } | { ok: false; error: string }>,
): ScheduledJob {
  const { now, self, status, episodes } = ctx;
  return {
    name: query,
    cron,
    ...(options.runAtStart === undefined ? {} : { runAtStart: options.runAtStart }),
    async run(signal) {
      if (options.due !== undefined && !(await options.due(signal))) return;
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
