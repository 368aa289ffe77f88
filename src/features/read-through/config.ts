import * as z from 'zod';
import type { ConfigPiece } from '../../config/piece.js';

/** walletStates for addresses that are not on the watchlist (opt-in). */
export interface ReadThroughSettings {
  /** Default false: unwatched addresses get an address book entry only. */
  readonly enabled: boolean;
  /** How long a state fetched for a client is served again, seconds (unknown accounts too). Default 10. */
  readonly ttlSeconds: number;
  /** Addresses queued or in flight at most, shared between client addresses; a request that would pass it gets 503 with Retry-After. Default 10,000. */
  readonly maxPendingAddresses: number;
}

declare module '../../domain/config.js' {
  interface Config {
    readonly readThrough: ReadThroughSettings;
  }
}

export const READ_THROUGH_CONFIG: ConfigPiece = {
  keys: {
    readThrough: z
      .strictObject({
        enabled: z.boolean().default(false),
        ttlSeconds: z.number().int().min(1).max(86_400).default(10),
        maxPendingAddresses: z.number().int().min(1).max(1_000_000).default(10_000),
      })
      .prefault({}),
  },
};
