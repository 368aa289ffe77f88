import type { WalletRecord } from '../../accounts/types.js';
import type { WatchedWallet } from '../../domain/config.js';
import { forEachInSlices } from '../../domain/slices.js';
import { watchlistKeys } from '../../config/watchlist.js';
import { mergeWallets, type OwnedWallets } from './merge.js';
import type { WalletsSnapshot } from './types.js';

/**
 * The snapshot this replica holds, and the map it owns: records are put into that map, and
 * a new snapshot object over it is what readers see (they cache by the snapshot's identity).
 * A snapshot handed in whole (one process, or the persisted one) is taken as it is, and
 * rebuilt in watchlist order the first time records are put into it, as after a watchlist change.
 */
export interface HeldState {
  current(): WalletsSnapshot | null;
  set(next: WalletsSnapshot): void;
  /** held with `records` merged in (mergeWallets); false when nothing changed. */
  merge(records: ReadonlyMap<string, WalletRecord>, watchlist: readonly WatchedWallet[], accept: Parameters<typeof mergeWallets>[3]): boolean;
  /** The records were advanced in place to `newest` at the latest: a new snapshot object over the same map. */
  advanced(newest: number): void;
  /**
   * This replica's own polled records put in (whatever held has of them), a slice at a time
   * (domain/slices.ts) when they go into the map held owns; else merged at once.
   */
  put(records: ReadonlyMap<string, WalletRecord>, watchlist: () => readonly WatchedWallet[]): Promise<void>;
}

export function createHeldState(): HeldState {
  let held: WalletsSnapshot | null = null;
  let own: OwnedWallets | null = null;
  /** The watchlist own's map was built for: records go into it while that is the watchlist (it holds no wallet off it). */
  let ownWatchlist: readonly WatchedWallet[] | null = null;
  return {
    current: () => held,
    set(next) {
      held = next;
    },
    merge(records, watchlist, accept) {
      const into = own !== null && own === held && ownWatchlist === watchlist ? { wallets: own.wallets, watched: watchlistKeys(watchlist) } : undefined;
      const next = mergeWallets(held, records, watchlist, accept, into);
      if (next === null) return false;
      held = own = next;
      ownWatchlist = watchlist;
      return true;
    },
    advanced(newest) {
      if (held === null) return;
      const fetchedAt = Math.max(held.fetchedAt, newest);
      if (own !== null && own === held) held = own = { wallets: own.wallets, fetchedAt };
      else held = { wallets: held.wallets, fetchedAt };
    },
    async put(records, watchlist) {
      const list = watchlist();
      if (own === null || own !== held || ownWatchlist !== list) {
        this.merge(records, list, () => true);
        return;
      }
      const { wallets } = own;
      const watched = watchlistKeys(list);
      let newest = -Infinity;
      await forEachInSlices(records, ([raw, record]) => {
        if (!wallets.has(raw) && !watched.has(raw)) return;
        wallets.set(raw, record);
        if (record.fetchedAt > newest) newest = record.fetchedAt;
      });
      // A watchlist change rebuilt the map meanwhile: the records go into the new one.
      if (own.wallets !== wallets) this.merge(records, watchlist(), () => true);
      else this.advanced(newest);
    },
  };
}
