import type { WalletRecord } from '../../accounts/types.js';

/** The watched wallets' states: immutable, replaced whole (readers may cache by identity). */
export interface WalletsSnapshot {
  /**
   * Keyed by raw uppercase address, in watchlist order; in a cluster replica, wallets first
   * received after the map was built follow the others (held.ts). Order only speeds up a
   * walk beside the watchlist (series.ts); readers look wallets up by key.
   */
  readonly wallets: ReadonlyMap<string, WalletRecord>;
  /** When the newest batch in this snapshot was answered (process clock, ms). */
  readonly fetchedAt: number;
}

/** What a walletStates answer reads of the wallets. */
export interface WalletsLookup {
  readonly wallets: { get(raw: string): WalletRecord | undefined };
  readonly fetchedAt: number;
}
