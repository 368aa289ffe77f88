import type { Logger } from 'pino';
import type { ClusterView } from '../cluster/view.js';
import type { ConfigPiece } from '../config/piece.js';
import type { Config, WatchedKeys } from '../domain/config.js';
import type { UpstreamClient } from '../domain/upstream.js';
import type { EpisodeLog } from '../log/episodes.js';
import type { MetricBlock } from '../metrics/exposition.js';
import type { MetricFamily } from '../metrics/catalogue.js';
import type { OwnMetrics } from '../metrics/registry.js';
import type { BatchSize } from '../accounts/batches.js';
import type { PollStatus } from '../schedule/poll-status.js';
import type { ScheduledJob, Scheduler } from '../schedule/scheduler.js';
import type { Route } from '../serve/route.js';
import type { PersistObserver } from '../snapshot/persist-faults.js';
import type { Provided, Provisions } from './provisions.js';

/**
 * A feature, as node_exporter has collectors: one folder under features/ that declares,
 * once, everything that exists because of it (its piece of the config, what it polls and
 * how it applies an answer, its persisted file, its metric families, its routes, its status
 * page sections and its health readings), and one line in features/index.ts. The daemon
 * (app/daemon.ts) hands each the core's parts (FeatureContext) and adds what it declares
 * to the core's registries, refusing a bad declaration (a route or a metric name taken
 * twice) at start. A feature imports the core and domain/, never another feature's folder:
 * what one offers another goes through `provides` (provisions.ts).
 */
export interface Feature {
  /** Its name in logs and shutdown steps: lowercase with underscores. */
  readonly name: string;
  /** Its keys of the config file. */
  readonly config?: ConfigPiece;
  /** Its chain series' families (ton_*), for the dashboards' and rules' checks; a name two features declare is refused at start. */
  readonly families?: readonly MetricFamily[];
  /** Its parts, made once with the daemon. */
  create(ctx: FeatureContext): FeatureParts;
}

/** What a feature adds to each of the core's registries. Every part is optional. */
export interface FeatureParts {
  /** Its scheduled jobs for one configuration, asked once per generation (schedule/poll-job.ts makes poll jobs). */
  jobs?(generation: GenerationParts): readonly ScheduledJob[];
  /** Its routes (path → route). */
  readonly routes?: readonly (readonly [string, Route])[];
  /** Its chain series on /metrics, in the order they come. */
  readonly series?: readonly MetricBlock[];
  /** The queries it polls, for tonwatch_up, tonwatch_last_success_timestamp_seconds and tonwatch_snapshot_age_seconds. */
  readonly polls?: readonly PolledQuery[];
  /** Why it is not ready to serve (each `<query>: <reason>`); empty when it is. */
  readiness?(): readonly string[];
  /** What it offers the other features. */
  readonly provides?: Partial<Provisions>;
  /** Before the server listens: what must be served from the first request. */
  load?(): Promise<void>;
  /** Once the server listens. */
  start?(): void;
  /** At shutdown, in the features' order: stops its work and persists what it holds. */
  stop?(): Promise<void> | void;
  /** Hears every upstream request's outcome. */
  onUpstreamRequest?(upstream: string, code: string, at: number): void;
}

/** A query a feature polls. */
export interface PolledQuery {
  readonly query: string;
  /** False when the configuration gives it nothing to poll: then it has no tonwatch_up series. */
  active(): boolean;
  /** When the data it serves was fetched (process clock); undefined when it has none. */
  fetchedAt(): number | undefined;
  /** Whether its poll-duration series exists from the start, at zero, whatever the config. */
  readonly alwaysExported?: boolean;
}

/** What one configuration gives the features; a reload builds the next and replaces it whole. */
export interface Generation {
  readonly config: Config;
  /** The upstream client of this config: failover, budgets, retries. */
  readonly client: UpstreamClient;
  /** Its jobs' schedules, started once the daemon is running. */
  readonly scheduler: Scheduler;
  /** Addresses per walletStates batch, learnt from 414s, shared by whoever sends walletStates batches. */
  readonly batchSize: BatchSize;
  /** The watchlist's raw keys. */
  readonly watched: WatchedKeys;
}

/** What a generation's jobs are made with: all of it but the scheduler they go to. */
export type GenerationParts = Omit<Generation, 'scheduler'>;

/** The core's parts every feature is given, built once by the daemon. */
export interface FeatureContext {
  /** tonwatch's version. */
  readonly version: string;
  readonly logger: Logger;
  /** The process clock (domain/clock.ts): ms, monotonic. */
  readonly now: () => number;
  /** Wall minus process time, ms (domain/clock.ts): for what leaves the process. */
  readonly wallOffset: () => number;
  /** The generation in force. Read it when needed, never keep a part of it aside: a reload replaces it. */
  readonly current: () => Generation;
  /** False until the daemon has started its schedules. */
  readonly running: () => boolean;
  /** Its own metrics (counters and gauges), and the core's counters it feeds. */
  readonly metrics: OwnMetrics;
  /** How writes of its persisted files go (tonwatch_snapshot_persist_*). */
  readonly persisted: PersistObserver;
  /** Failures logged once per episode (kept across reloads). */
  readonly episodes: EpisodeLog;
  /** Each query's last poll outcome (schedule/poll-job.ts records it). */
  readonly polls: PollStatus;
  /** The replicas this process is one of (cluster/), or one process alone. */
  readonly cluster: ClusterView;
  /** What the other features offer (provisions.ts): read when needed. */
  readonly provided: Provided;
  /** Told once the daemon's start-up work is done (app/daemon.ts: DaemonDeps.startedUp). */
  readonly startedUp?: (() => void) | undefined;
}
