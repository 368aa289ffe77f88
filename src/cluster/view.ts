import type { Logger } from 'pino';
import type { WatchedWallet } from '../domain/config.js';
import type { EpisodeLog } from '../log/episodes.js';
import type { RequestBudget } from '../upstream/budget.js';

/**
 * What the features see of the cluster (cluster/runtime.ts), or of its absence: one
 * process owns every wallet, leads, shares nothing and keeps its own budgets.
 */
export interface ClusterView {
  /** Whether this process is a replica of a cluster (a `cluster` section). */
  readonly enabled: boolean;
  /** The wallets of `watchlist` this replica polls and exports: the same array while nothing changes. */
  owned<W extends { readonly raw: string }>(watchlist: readonly W[]): readonly W[];
  /** The wallets of `watchlist` another member owns, as this replica sees the members (what that member's markers point into). */
  ownedBy<W extends { readonly raw: string }>(member: string, watchlist: readonly W[]): readonly W[];
  /** Whether this replica polls and exports what one replica polls for all (the queue sizes, the jettons). */
  leads(): boolean;
  /** Calls `listener` whenever this replica's share gains wallets (a member left, or it has just joined): they are polled at once. */
  onGained(listener: () => void): void;
  /** The budget of an upstream shared by the replicas; undefined: the process's own. */
  budgetFor(upstream: { readonly name: string; readonly rps: number }): RequestBudget | undefined;
  /** A stream of records shared between the replicas (share.ts), under `name`: what one replica polls, every replica holds. */
  channel<R>(name: string, spec: ChannelSpec<R>): Channel<R>;
}

/** How a feature's records go between replicas. */
export interface ChannelSpec<R> {
  /** A record's key: the field of the channel's hash it is kept under (a wallet's raw address). */
  keyOf(record: R): string;
  /** One line, times as wall time (`wallOffset`: wall minus process time now). */
  encode(record: R, wallOffset: number): string;
  /** A line back, times on the process clock; null when it cannot be read (skipped). */
  decode(line: string, toProcess: (wall: number) => number): R | null;
  /** Records other replicas published, or all the channel holds when loaded whole; the feature applies what is newer. */
  receive(records: readonly R[]): void;
  /** What this replica holds of its share: published again after a reconnect, or when its share changed. */
  held(): Iterable<R>;
  /**
   * Markers other replicas published (`from`: the member), in the order published, after
   * the records published before them: what a publisher says of records it did not send
   * again (the wallets: "fetched at t, unchanged"). Markers go to the stream and the
   * channel's marker hash, never its record hash.
   */
  receiveMarkers?(lines: readonly string[], from: string): void;
}

/** Hands records to the other replicas. */
export interface Channel<R> {
  /** `records` to the hash and the stream; then `markers` (lines) to the stream and the marker hash under their keys. */
  publish(records: Iterable<R>, markers?: readonly Marker[]): void;
  /** Keys out of the channel's hash (records no replica polls any more). */
  forget(keys: Iterable<string>): void;
  /** These keys' records read from the channel's hash and handed to `receive` (keys newly watched). */
  load(keys: readonly string[]): void;
}

/** A channel's marker: its key in the marker hash (the newest per key is kept) and its line. */
export interface Marker {
  readonly key: string;
  readonly line: string;
}

const NO_CHANNEL: Channel<never> = Object.freeze({ publish: () => undefined, forget: () => undefined, load: () => undefined });

/** One tonwatch, no cluster. */
export const SINGLE_PROCESS: ClusterView = Object.freeze({
  enabled: false,
  owned: <W extends { readonly raw: string }>(watchlist: readonly W[]) => watchlist,
  ownedBy: <W extends { readonly raw: string }>(_member: string, watchlist: readonly W[]) => watchlist,
  leads: () => true,
  onGained: () => undefined,
  budgetFor: () => undefined,
  channel: <R>() => NO_CHANNEL as Channel<R>,
});

/** What cluster mode takes from the daemon: its logger, clocks and watchlist. */
export interface ClusterDaemonParts {
  readonly version: string;
  readonly logger: Logger;
  readonly episodes: EpisodeLog;
  readonly now: () => number;
  readonly wallOffset: () => number;
  readonly watchlist: () => readonly WatchedWallet[];
}
