import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { ClusterSettings } from '../domain/config.js';
import { clusterKeys } from './keys.js';
import { createMembership, type Membership } from './membership.js';
import { HEARTBEAT, LEAVE, TAKE_TOKENS } from './scripts.js';
import { createShare, type Share } from './share.js';
import type { ClusterDaemonParts } from './view.js';

/**
 * A replica's link to the cluster: two Redis connections (commands, and the stream's
 * blocking reads), the heartbeat that keeps it a member and renews the lease, and the
 * shared snapshot (share.ts). Loaded only when the config has a `cluster` section.
 */
export interface ClusterRuntime {
  readonly membership: Membership;
  /** Whether Redis answered the last heartbeat and is connected now. */
  redisUp(): boolean;
  /** Whether the command connection is up (the budget asks Redis while it is). */
  connected(): boolean;
  readonly share: Share;
  /** Tokens from an upstream's shared bucket (scripts.ts TAKE_TOKENS). */
  take(upstream: string, rps: number, capacity: number, want: number, reserve: number, holdMs: number): Promise<{ granted: number; waitMs: number }>;
  /** Connects, waiting up to `waitMs` (a Redis down at start is retried in the background), and heartbeats. */
  connect(waitMs: number): Promise<void>;
  /** Starts reading the shared snapshot. */
  start(): void;
  /** Leaves the cluster (its wallets go to the others at their next heartbeat) and disconnects. */
  stop(): Promise<void>;
}

export interface ClusterRuntimeDeps extends ClusterDaemonParts {
  readonly settings: ClusterSettings;
  /** This replica's id. */
  readonly self: string;
  /** Told when the owned share may have changed, and after a reconnect: what this replica owns and polled goes to Redis again. */
  readonly reshare: () => void;
}

interface Scripts {
  tonwatchHeartbeat(members: string, member: string, leader: string, id: string, ttlMs: number, info: string, lead: string): Promise<[string[], string | null]>;
  tonwatchLeave(members: string, member: string, leader: string, id: string): Promise<number>;
  tonwatchTake(bucket: string, rps: number, capacity: number, want: number, reserve: number, holdMs: number): Promise<[number, number]>;
}

/** Redis that does not answer within this is down for the purpose at hand: the replica goes on without it. */
const COMMAND_TIMEOUT_MS = 2_000;

/** The command connection (with tonwatch's scripts) and the stream's, not connected yet. */
function openConnections(settings: ClusterSettings, self: string): { main: Redis; reader: Redis; scripts: Scripts } {
  const options = {
    lazyConnect: true,
    // Commands fail at once while Redis is away, and the replica goes on with what it knows.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectionName: `tonwatch:${self}`,
    retryStrategy: (times: number) => Math.min(200 * times, 2_000),
  };
  const main = new Redis(settings.redis, { ...options, commandTimeout: COMMAND_TIMEOUT_MS });
  // Blocking reads of up to a second, then the timeout.
  const reader = new Redis(settings.redis, { ...options, commandTimeout: COMMAND_TIMEOUT_MS + 1_000 });
  main.defineCommand('tonwatchHeartbeat', { numberOfKeys: 3, lua: HEARTBEAT });
  main.defineCommand('tonwatchLeave', { numberOfKeys: 3, lua: LEAVE });
  main.defineCommand('tonwatchTake', { numberOfKeys: 1, lua: TAKE_TOKENS });
  return { main, reader, scripts: main as unknown as Scripts };
}

/** Each connection's loss and return, logged once per episode. */
function reportConnections(main: Redis, reader: Redis, episodes: ClusterRuntimeDeps['episodes']): void {
  for (const [name, connection] of [
    ['commands', main],
    ['stream', reader],
  ] as const) {
    connection.on('error', (err: Error) =>
      episodes.failed(`redis_${name}`, { err: err.message, connection: name }, 'cannot reach Redis; going on with the last known cluster'),
    );
    connection.on('ready', () => episodes.ok(`redis_${name}`, { connection: name }, 'Redis reachable again'));
  }
}

interface HeartbeatDeps extends ClusterRuntimeDeps {
  readonly pruneMarkers: (members: readonly string[]) => void;
  readonly scripts: Scripts;
  readonly keys: ReturnType<typeof clusterKeys>;
  readonly ttlMs: number;
  readonly heartbeatMs: number;
  readonly membership: Membership;
}

/**
 * The heartbeat: every third of the ttl (and at once on every reconnect) it renews this
 * member, bids for the lease, and learns the members and the leader; a change, a reconnect
 * or joining asks for the owned share to be published again.
 */
function createHeartbeat(deps: HeartbeatDeps): { start(): void; reconnected(): void; lastHeard(): number; stop(): void } {
  const { scripts, keys, self, ttlMs, heartbeatMs, membership, logger } = deps;
  const info = JSON.stringify({ version: deps.version, startedAt: new Date(deps.now() + deps.wallOffset()).toISOString() });
  let lastHeard = -Infinity;
  let led = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /** Set by a (re)connect: the next heartbeat shares again what this replica owns (what it polled while Redis was away). */
  let reconnected = false;

  async function beat(): Promise<void> {
    clearTimeout(timer);
    if (stopped) return;
    try {
      const [members, leader] = await scripts.tonwatchHeartbeat(keys.members, keys.member(self), keys.leader, self, ttlMs, info, membership.bids() ? '1' : '0');
      const first = lastHeard === -Infinity;
      lastHeard = deps.now();
      const changed = membership.heard(members, leader ?? null);
      // Joined: its share is its own once the others have seen it (membership.ts).
      if (first) setTimeout(() => !stopped && deps.reshare(), heartbeatMs + 50).unref();
      if (changed) logger.info({ members: membership.members(), leader: membership.leader() }, 'cluster members');
      // A member that left (or restarted under another id) leaves markers nobody will replace.
      if (changed && membership.leads()) deps.pruneMarkers(membership.members());
      if (changed || reconnected) deps.reshare();
      reconnected = false;
    } catch (err) {
      logger.debug({ err }, 'heartbeat failed');
    }
    if (membership.leads() !== led) {
      led = membership.leads();
      logger.info({ leader: led }, led ? 'leading: this replica polls the queue sizes' : 'no longer leading');
    }
    if (!stopped) timer = setTimeout(() => void beat(), heartbeatMs);
  }

  return {
    start() {
      timer = setTimeout(() => void beat(), heartbeatMs);
    },
    reconnected() {
      reconnected = true;
      void beat();
    },
    lastHeard: () => lastHeard,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

export function createClusterRuntime(deps: ClusterRuntimeDeps): ClusterRuntime {
  const { settings, self, logger, episodes } = deps;
  const keys = clusterKeys(settings.name);
  const ttlMs = settings.memberTtlSeconds * 1000;
  const heartbeatMs = Math.max(500, Math.floor(ttlMs / 3));
  const { main, reader, scripts } = openConnections(settings, self);
  const membership = createMembership({ self, heartbeatMs, now: deps.now });
  const share = createShare({
    main,
    reader,
    keys,
    self,
    incarnation: randomBytes(6).toString('hex'),
    logger,
    wallOffset: deps.wallOffset,
    records: () => deps.watchlist().length,
  });
  const heartbeat = createHeartbeat({ ...deps, scripts, keys, ttlMs, heartbeatMs, membership, pruneMarkers: (members) => void share.pruneMarkers(members) });
  let reading: Promise<void> = Promise.resolve();

  reportConnections(main, reader, episodes);
  // The stream's connection back after a loss: what was written meanwhile may be trimmed.
  reader.on('ready', () => share.resync());
  main.on('ready', () => {
    share.resync();
    membership.reconnected();
    heartbeat.reconnected();
  });

  return {
    membership,
    share,
    redisUp: () => main.status === 'ready' && deps.now() - heartbeat.lastHeard() < ttlMs,
    connected: () => main.status === 'ready',
    async take(upstream, rps, capacity, want, reserve, holdMs) {
      const [granted, waitMs] = await scripts.tonwatchTake(keys.bucket(upstream), rps, capacity, want, reserve, Math.max(0, Math.round(holdMs)));
      return { granted, waitMs };
    },
    async connect(waitMs) {
      heartbeat.start();
      const connected = main.connect().then(
        () => true,
        () => false,
      );
      await Promise.race([connected, sleep(waitMs)]);
    },
    start() {
      reader.connect().catch(() => undefined);
      reading = share.run();
    },
    async stop() {
      heartbeat.stop();
      share.stop();
      if (main.status === 'ready') {
        await scripts
          .tonwatchLeave(keys.members, keys.member(self), keys.leader, self)
          .catch((err: unknown) => logger.warn({ err }, 'could not leave the cluster'));
      }
      reader.disconnect();
      await reading;
      await main.quit().catch(() => main.disconnect());
    },
  };
}
