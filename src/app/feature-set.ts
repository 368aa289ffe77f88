import type { Feature, FeatureContext, FeatureParts, GenerationParts } from '../features/feature.js';
import { FEATURES } from '../features/index.js';
import type { Provisions } from '../features/provisions.js';
import type { HealthSource } from '../metrics/registry.js';
import type { MetricBlock } from '../metrics/exposition.js';
import type { PollStatus } from '../schedule/poll-status.js';
import type { ScheduledJob } from '../schedule/scheduler.js';
import type { Route } from '../serve/route.js';
import { ageSeconds, isFresh } from '../snapshot/freshness.js';

/**
 * The features, made with the core's parts, and what they declare put in the core's
 * registries: their routes, series, polled queries (health), readiness, provisions, jobs
 * and lifecycle. A declaration that cannot work (a metric family two features declare)
 * is refused here, at start.
 */
export interface FeatureSet {
  /** Each feature's routes. */
  routes(): readonly (readonly (readonly [string, Route])[])[];
  /** The chain series on /metrics, in the features' order. */
  series(): readonly MetricBlock[];
  /** Why the daemon is not ready: every feature's reasons, in order. */
  notReady(): readonly string[];
  provided<K extends keyof Provisions>(kind: K): readonly Provisions[K][];
  jobs(generation: GenerationParts): readonly ScheduledJob[];
  upstreamRequest(upstream: string, code: string, at: number): void;
  /** The self metrics' readings of the features' polls. */
  readonly health: Pick<HealthSource, 'queries' | 'up' | 'snapshotAgeSeconds' | 'lastSuccessAt'>;
  /** The queries whose poll-duration series exist from the start. */
  alwaysPolled(): readonly string[];
  /** Before the server listens, in order. */
  load(): Promise<void>;
  /** Once it listens. */
  start(): void;
  /** The features' shutdown steps, in order: each stops its work and persists what it holds. */
  stopSteps(): readonly (readonly [name: string, run: () => Promise<unknown>])[];
}

export interface FeatureSetDeps {
  /** Each query's last poll outcome. */
  readonly polls: PollStatus;
  /** snapshot.maxAgeSeconds of the config in force. */
  readonly maxAgeSeconds: () => number;
}

export function createFeatureSet(ctx: FeatureContext, deps: FeatureSetDeps, features: readonly Feature[] = FEATURES): FeatureSet {
  refuseSharedFamilies(features);
  const made: readonly (readonly [Feature, FeatureParts])[] = features.map((feature) => [feature, feature.create(ctx)]);
  const parts = made.map(([, p]) => p);
  const polled = parts.flatMap((p) => p.polls ?? []);
  const byQuery = new Map(polled.map((poll) => [poll.query, poll]));
  const series = parts.flatMap((p) => p.series ?? []);
  const fetchedAtOf = (query: string): number | undefined => byQuery.get(query)?.fetchedAt();
  return {
    routes: () => parts.map((p) => p.routes ?? []),
    series: () => series,
    notReady: () => parts.flatMap((p) => p.readiness?.() ?? []),
    provided: (kind) => parts.flatMap((p) => (p.provides?.[kind] === undefined ? [] : [p.provides[kind]])),
    jobs: (generation) => parts.flatMap((p) => p.jobs?.(generation) ?? []),
    upstreamRequest(upstream, code, at) {
      for (const p of parts) p.onUpstreamRequest?.(upstream, code, at);
    },
    health: {
      queries: () => polled.map((poll) => poll.query),
      up(query) {
        if (byQuery.get(query)?.active() !== true) return undefined;
        const fetchedAt = fetchedAtOf(query);
        return deps.polls.get(query).lastOk !== false && fetchedAt !== undefined && isFresh(fetchedAt, ctx.now(), deps.maxAgeSeconds());
      },
      snapshotAgeSeconds(query) {
        const fetchedAt = fetchedAtOf(query);
        return fetchedAt === undefined ? undefined : ageSeconds(fetchedAt, ctx.now());
      },
      lastSuccessAt(query) {
        const at = deps.polls.get(query).lastSuccessAt ?? fetchedAtOf(query);
        return at === undefined ? undefined : at + ctx.wallOffset();
      },
    },
    alwaysPolled: () => polled.filter((poll) => poll.alwaysExported === true).map((poll) => poll.query),
    async load() {
      for (const p of parts) await p.load?.();
    },
    start() {
      for (const p of parts) p.start?.();
    },
    stopSteps: () => made.map(([feature, p]) => [feature.name, () => Promise.resolve(p.stop?.())] as const),
  };
}

/** A chain family two features declare would be exported twice under one name: refused at start. */
function refuseSharedFamilies(features: readonly Feature[]): void {
  const declared = new Map<string, string>();
  for (const feature of features) {
    for (const family of feature.families ?? []) {
      const other = declared.get(family.name);
      if (other !== undefined) throw new Error(`the metric family ${family.name} is declared by both ${other} and ${feature.name}`);
      declared.set(family.name, feature.name);
    }
  }
}
