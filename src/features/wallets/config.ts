import type { ConfigPiece } from '../../config/piece.js';

declare module '../../domain/config.js' {
  interface Schedules {
    /** When the watched wallets are polled (a cycle of batches). Default every 30 s. */
    readonly wallets: string;
  }
}

/** The wallets' keys of the config file (the watchlist itself is the core's: every feature reads it). */
export const WALLETS_CONFIG: ConfigPiece = { schedules: { wallets: '*/30 * * * * *' } };
