import type { Logger } from 'pino';
import type { WalletRecord } from '../../accounts/types.js';
import type { WatchedWallet } from '../../domain/config.js';
import type { WalletsSnapshot } from './types.js';
import { assembleWalletsSnapshot } from './assemble.js';

/** What a cycle's takeover reads of the cycle, and where it publishes. */
export interface TakeoverDeps {
  readonly logger: Logger;
  readonly now: () => number;
  /** Wallets that joined the cycle's share since it began, each once (to-poll.ts gainedSince). */
  readonly gained: () => readonly WatchedWallet[];
  readonly previous: () => WalletsSnapshot | null;
  readonly publish: (snapshot: WalletsSnapshot) => void | Promise<void>;
  /** The cycle's records so far and its failed addresses. */
  readonly records: ReadonlyMap<string, WalletRecord>;
  readonly failed: ReadonlySet<string>;
  /** Told how many wallets joined, for the cycle's progress. */
  readonly joined: (count: number) => void;
}

/**
 * Wallets a cluster replica took over while its cycle ran (a member left): asked ahead of
 * the rest of its share, and published as soon as their batches are answered, not at the
 * cycle's end, so a share left behind is served fresh again within the time its own wallets
 * take. The cycle's snapshot at its end holds them too.
 */
export interface Takeover {
  /** The raw addresses to ask next, for the first pass's queue (batches.ts BatchQueueSources.first). */
  first(): string[];
  /** A batch was answered or failed: once the last wallet taken over is, they are published. */
  done(batch: readonly string[]): Promise<void>;
  /** The cycle ended (its snapshot, published, holds them): a takeover still under way, its wallets cut off by members that joined since, ends here. */
  end(): void;
  /** Every wallet that joined this cycle, for its snapshot. */
  readonly joined: readonly WatchedWallet[];
}

export function createTakeover(deps: TakeoverDeps): Takeover {
  const joined: WatchedWallet[] = [];
  /** The wallets of the takeover under way, those not yet answered, and when it began. */
  let current: { wallets: WatchedWallet[]; pending: Set<string>; startedAt: number } | null = null;
  return {
    joined,
    first() {
      const gained = deps.gained();
      if (gained.length === 0) return [];
      current ??= { wallets: [], pending: new Set(), startedAt: deps.now() };
      const raws: string[] = [];
      for (const wallet of gained) {
        joined.push(wallet);
        current.wallets.push(wallet);
        current.pending.add(wallet.raw);
        raws.push(wallet.raw);
      }
      deps.joined(gained.length);
      return raws;
    },
    async done(batch) {
      if (current === null) return;
      for (const raw of batch) current.pending.delete(raw);
      if (current.pending.size > 0) return;
      const taken = current;
      current = null;
      await deps.publish(assembleWalletsSnapshot(taken.wallets, deps.records, deps.previous()?.wallets, deps.now()));
      logTaken(deps, taken);
    },
    end() {
      if (current !== null) logTaken(deps, current);
      current = null;
    },
  };
}

/** The same line as a run asked after the cycle (features/wallets/index.ts): the cluster bench times a takeover by it. */
function logTaken(deps: TakeoverDeps, taken: { wallets: readonly WatchedWallet[]; pending: ReadonlySet<string>; startedAt: number }): void {
  const { wallets, pending, startedAt } = taken;
  const failed = wallets.reduce((n, w) => n + (deps.failed.has(w.raw) ? 1 : 0), 0);
  const seconds = (deps.now() - startedAt) / 1000;
  deps.logger.info(
    { wallets: wallets.length, failed, notAsked: pending.size, ok: failed < wallets.length, seconds, during: 'cycle' },
    'polled the wallets taken over',
  );
}
