import { hostname } from 'node:os';
import type { ClusterSettings } from '../domain/config.js';
import { burstOf } from '../upstream/budget.js';
import { createClusterBudget } from './budget.js';
import type { ClusterRuntime } from './runtime.js';
import type { ClusterReading } from '../domain/cluster.js';
import { SINGLE_PROCESS, type Channel, type ChannelSpec, type ClusterDaemonParts, type Marker, type ClusterView } from './view.js';

/** The cluster as the daemon holds it: the view the features read, and its lifecycle. */
export interface ClusterLink extends ClusterView {
  /** Loads the Redis client's code (only with a `cluster` section). */
  load(): Promise<void>;
  /** Joins: connects, heartbeats, reads the shared snapshot. */
  start(): void;
  /** Leaves and disconnects. */
  stop(): Promise<void>;
  /** The cluster metrics' readings; undefined in one process (no series). */
  reading(): ClusterReading | undefined;
}

export interface ClusterLinkDeps extends ClusterDaemonParts {
  readonly settings: ClusterSettings | null;
  readonly listenPort: number;
}

/** This replica's id: as configured, else the host name and the listen port (the process id when the port is chosen by the system). */
export function memberId(settings: ClusterSettings, listenPort: number): string {
  return settings.member ?? `${hostname()}:${listenPort === 0 ? `pid${process.pid}` : listenPort}`;
}

/** How long a start waits for Redis before it goes on and keeps trying in the background. */
const CONNECT_WAIT_MS = 2_000;

const NO_LIFECYCLE = { load: () => Promise.resolve(), start: () => undefined, stop: () => Promise.resolve(), reading: () => undefined };

export function createClusterLink(deps: ClusterLinkDeps): ClusterLink {
  const { settings } = deps;
  if (settings === null) return { ...SINGLE_PROCESS, ...NO_LIFECYCLE };
  const self = memberId(settings, deps.listenPort);
  const logger = deps.logger.child({ module: 'cluster', member: self });
  let runtime: ClusterRuntime | null = null;
  const gainedListeners: (() => void)[] = [];
  /** The features' channels, added to the runtime's share when it is made (they are declared before it loads). */
  const channels: [string, ChannelSpec<unknown>][] = [];
  const publishers = new Map<string, Channel<unknown>>();
  /** The share at the last look: what a change gained is what was not in it. */
  let lastShare = new Set<string>();

  /** What this replica owns and holds, to Redis again (after a reconnect, or when its share changed). */
  const reshare = (): void => {
    if (runtime === null) return;
    const owned = runtime.membership.owned(deps.watchlist());
    const share = new Set(owned.map((w) => w.raw));
    const gained = owned.some((w) => !lastShare.has(w.raw));
    lastShare = share;
    if (gained) for (const listener of gainedListeners) listener();
    runtime.share.publishHeld();
  };

  return {
    enabled: true,
    owned: (watchlist) => runtime?.membership.owned(watchlist) ?? [],
    ownedBy: (member, watchlist) => runtime?.membership.ownedBy(member, watchlist) ?? [],
    leads: () => runtime?.membership.leads() ?? false,
    onGained: (listener) => void gainedListeners.push(listener),
    channel<R>(name: string, spec: ChannelSpec<R>) {
      channels.push([name, spec]);
      return {
        publish: (records: Iterable<R>, markers?: readonly Marker[]) => publishers.get(name)?.publish(records, markers),
        forget: (keys: Iterable<string>) => publishers.get(name)?.forget(keys),
        load: (keys: readonly string[]) => publishers.get(name)?.load(keys),
      };
    },
    budgetFor: ({ name, rps }) =>
      createClusterBudget({
        rps,
        now: deps.now,
        bucket: {
          available: () => runtime?.connected() ?? false,
          take: (want, reserve, holdMs) => {
            if (runtime === null) return Promise.reject(new Error('not connected'));
            return runtime.take(name, rps, burstOf(rps), want, reserve, holdMs);
          },
        },
        members: () => runtime?.membership.members().length ?? 1,
        onFallback: (fallback) =>
          logger.warn(
            { upstream: name, rps: fallback ? rps / Math.max(1, runtime?.membership.members().length ?? 1) : rps },
            fallback ? "shared budget unreachable; spending this replica's last known share" : 'shared budget reachable again',
          ),
      }),
    async load() {
      const { createClusterRuntime } = await import('./runtime.js');
      runtime = createClusterRuntime({ ...deps, settings, self, logger, reshare });
      for (const [name, spec] of channels) publishers.set(name, runtime.share.channel(name, spec));
      logger.info({ cluster: settings.name, memberTtlSeconds: settings.memberTtlSeconds }, 'cluster mode: joining');
      // Joined before the first poll when Redis answers; else the replica starts and keeps trying.
      await runtime.connect(CONNECT_WAIT_MS);
    },
    start: () => runtime?.start(),
    stop: async () => runtime?.stop(),
    reading: () => {
      if (runtime === null) return undefined;
      const { membership } = runtime;
      return {
        members: membership.members().length,
        ownedWallets: membership.owned(deps.watchlist()).length,
        leader: membership.leads(),
        redisUp: runtime.redisUp(),
      };
    },
  };
}
