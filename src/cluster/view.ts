import type { Logger } from 'pino';
import type { WatchedKeys, WatchedWallet } from '../domain/config.js';
import type { EpisodeLog } from '../log/episodes.js';
import type { SnapshotStore } from '../snapshot/store.js';
import type { QueueSizesSnapshot, WalletRecord } from '../snapshot/types.js';
import type { RequestBudget } from '../upstream/budget.js';

/**
 * What the features see of the cluster (cluster/runtime.ts), or of its absence: one
 * process owns every wallet, leads, shares nothing and keeps its own budgets.
 */
export interface ClusterView {
  /** Whether this process is a replica of a cluster (a `cluster` section). */
  readonly enabled: boolean;
  /** The wallets of `watchlist` this replica polls and exports: the same array while nothing changes. */
  owned(watchlist: readonly WatchedWallet[]): readonly WatchedWallet[];
  /** Whether this replica polls and exports the queue sizes and the jettons. */
  leads(): boolean;
  /** Hands what this replica polled to the others. */
  shareWallets(records: Iterable<WalletRecord>): void;
  shareQueueSizes(snapshot: QueueSizesSnapshot): void;
  /** Calls `listener` whenever this replica's share gains wallets (a member left, or it has just joined): they are polled at once. */
  onGained(listener: () => void): void;
  /** The budget of an upstream shared by the replicas; undefined: the process's own. */
  budgetFor(upstream: { readonly name: string; readonly rps: number }): RequestBudget | undefined;
}

/** One tonwatch, no cluster. */
export const SINGLE_PROCESS: ClusterView = Object.freeze({
  enabled: false,
  owned: (watchlist: readonly WatchedWallet[]) => watchlist,
  leads: () => true,
  shareWallets: () => undefined,
  shareQueueSizes: () => undefined,
  onGained: () => undefined,
  budgetFor: () => undefined,
});

/** What a replica says of the cluster in its metrics. */
export interface ClusterReading {
  readonly members: number;
  readonly ownedWallets: number;
  readonly leader: boolean;
  readonly redisUp: boolean;
}

/** What cluster mode takes from the daemon: its logger, clocks, store and watchlist. */
export interface ClusterDaemonParts {
  readonly version: string;
  readonly logger: Logger;
  readonly episodes: EpisodeLog;
  readonly now: () => number;
  readonly wallOffset: () => number;
  readonly store: SnapshotStore;
  readonly watchlist: () => readonly WatchedWallet[];
  readonly watched: () => WatchedKeys;
}
