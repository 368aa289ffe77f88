import { createBatchSize } from '../../src/accounts/batches.js';
import { createFeatureSet, type FeatureSet } from '../../src/app/feature-set.js';
import { SINGLE_PROCESS } from '../../src/cluster/view.js';
import { watchlistKeys } from '../../src/config/watchlist.js';
import type { Config } from '../../src/domain/config.js';
import type { UpstreamClient, UpstreamFailure } from '../../src/domain/upstream.js';
import type { Feature, FeatureContext, Generation } from '../../src/features/feature.js';
import { FEATURES } from '../../src/features/index.js';
import { createEpisodeLog } from '../../src/log/episodes.js';
import { createMetricsExposition } from '../../src/metrics/exposition.js';
import { createSelfMetrics, type SelfMetrics } from '../../src/metrics/registry.js';
import { createPollStatus } from '../../src/schedule/poll-status.js';
import type { ScheduledJob } from '../../src/schedule/scheduler.js';
import { coreRoutes, routeTable } from '../../src/serve/routes.js';
import type { Route } from '../../src/serve/route.js';
import type { ServedResponse } from '../../src/serve/response.js';
import { createLogSink } from './log.js';

/** An upstream client whose calls fail unless a test gives them an answer. */
export function clientStub(calls: Partial<UpstreamClient> = {}): UpstreamClient {
  const unanswered = (): Promise<{ ok: false; error: UpstreamFailure }> =>
    Promise.resolve({ ok: false, error: { code: 'network', message: 'no answer in this test', details: { upstream: 'stub', query: 'stub' } } });
  return {
    fetchTips: () => Promise.resolve([]),
    fetchQueueSizes: unanswered,
    fetchWalletStates: unanswered,
    fetchJettonWallets: unanswered,
    fetchJettonMetadata: unanswered,
    fetchChainHeads: unanswered,
    fetchConfigParams: unanswered,
    runGetMethod: unanswered,
    fetchValidatorStats: unanswered,
    close: () => undefined,
    ...calls,
  };
}

export interface FeatureHarness {
  readonly self: SelfMetrics;
  readonly set: FeatureSet;
  readonly routes: ReadonlyMap<string, Route>;
  /** Calls a route's handler as the server would. */
  readonly call: (path: string, method?: string, query?: string, acceptsGzip?: boolean) => Promise<ServedResponse>;
  /** Runs the job named `name` of the configuration in force once, to its end. */
  readonly run: (name: string) => Promise<void>;
  /** Puts another configuration (and client) in force, as a reload does. */
  readonly reload: (config: Config, client?: UpstreamClient) => void;
}

/**
 * The features (all of them, or those given) made with the core's parts as the daemon makes
 * them, on one configuration and an upstream client stub, without a server or scheduler:
 * a test runs a job to have data, and calls a route's handler directly.
 */
export function featureHarness(options: {
  config: Config;
  client?: UpstreamClient;
  now?: () => number;
  /** When each job is next due (ms since epoch), as the scheduler would say. */
  nextRunAt?: Readonly<Record<string, number>>;
  features?: readonly Feature[];
}): FeatureHarness {
  const now = options.now ?? Date.now;
  const { logger } = createLogSink();
  const polls = createPollStatus();
  let generation: Generation;
  let jobs: readonly ScheduledJob[] = [];
  const self = createSelfMetrics({
    version: 't',
    nodeVersion: 'v20',
    defaultMetrics: false,
    now,
    health: {
      queries: () => set.health.queries(),
      up: (query) => set.health.up(query),
      snapshotAgeSeconds: (query) => set.health.snapshotAgeSeconds(query),
      lastSuccessAt: (query) => set.health.lastSuccessAt(query),
      watchlistSize: () => generation.config.watchlist.length,
      cluster: () => undefined,
    },
  });
  const ctx: FeatureContext = {
    version: 't',
    logger,
    now,
    wallOffset: () => 0,
    current: () => generation,
    running: () => true,
    metrics: self.own,
    persisted: self.persist,
    episodes: createEpisodeLog(logger, now),
    polls,
    cluster: SINGLE_PROCESS,
    provided: { all: (kind) => set.provided(kind) },
  };
  const set = createFeatureSet(ctx, { polls, maxAgeSeconds: () => generation.config.snapshot.maxAgeSeconds }, options.features ?? FEATURES);
  self.pollsDeclared(set.alwaysPolled());
  const reload = (config: Config, client = options.client ?? clientStub()): void => {
    const parts = { config, client, batchSize: createBatchSize(config.walletBatchSize, now), watched: watchlistKeys(config.watchlist) };
    const scheduler = {
      start: () => undefined,
      stop: () => Promise.resolve(),
      runNow: () => undefined,
      nextRunAt: (name: string) => options.nextRunAt?.[name] ?? null,
    };
    generation = { ...parts, scheduler };
    jobs = set.jobs(parts);
  };
  reload(options.config);
  const metrics = createMetricsExposition({ self, now, blocks: () => set.series() });
  const routes = routeTable([
    coreRoutes({
      metrics,
      maxMetricsRequests: () => generation.config.listen.maxMetricsRequests,
      notReady: () => set.notReady(),
      v2Methods: () => Object.assign({}, ...set.provided('v2Methods')) as Record<string, never>,
    }),
    ...set.routes(),
  ]);
  return {
    self,
    set,
    routes,
    async call(path, method = 'GET', query = '', acceptsGzip = false) {
      const route = routes.get(path);
      if (route === undefined) throw new Error(`no route for ${path}`);
      return route.handle({ method, path, query, acceptsGzip: () => acceptsGzip, client: '127.0.0.1' });
    },
    async run(name) {
      const job = jobs.find((j) => j.name === name);
      if (job === undefined) throw new Error(`no job ${name} (jobs: ${jobs.map((j) => j.name).join(', ')})`);
      await job.run(new AbortController().signal, 'tick');
    },
    reload,
  };
}
