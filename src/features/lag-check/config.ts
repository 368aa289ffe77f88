import * as z from 'zod';
import type { ConfigPiece } from '../../config/piece.js';

/** Which upstreams are behind the chain tip (lagCheck). */
export interface LagCheckSettings {
  /** How often each upstream's masterchain tip is asked, in seconds; divides a minute or an hour. 0: never. Default 60. */
  readonly everySeconds: number;
  /** Masterchain blocks behind the most advanced upstream (or, for wallets, an indexer behind its own v2 tip) past which an upstream is skipped. Default 10. */
  readonly maxLagBlocks: number;
}

declare module '../../domain/config.js' {
  interface Config {
    readonly lagCheck: LagCheckSettings;
  }
}

/** The node-cron expression of a lag check every `seconds`; null for none (0); undefined when cron cannot express it. */
export function lagCheckCron(seconds: number): string | null | undefined {
  if (seconds === 0) return null;
  if (seconds < 60 && 60 % seconds === 0) return `*/${seconds} * * * * *`;
  if (seconds === 60) return '0 * * * * *';
  if (seconds % 60 === 0 && 60 % (seconds / 60) === 0) return seconds === 3600 ? '0 0 * * * *' : `0 */${seconds / 60} * * * *`;
  return undefined;
}

export const LAG_CHECK_CONFIG: ConfigPiece = {
  keys: {
    lagCheck: z
      .strictObject({
        /** Seconds between two checks of every upstream's tip; must divide a minute or an hour (a cron step). 0: no check. */
        everySeconds: z
          .number()
          .int()
          .min(0)
          .max(3600)
          .default(60)
          .refine((n) => lagCheckCron(n) !== undefined, { message: 'must be 0 or divide a minute (1-30, 60) or an hour (120, 180, …, 1800, 3600)' }),
        /** Blocks behind the most advanced upstream past which an upstream is skipped. */
        maxLagBlocks: z.number().int().min(1).max(1_000_000).default(10),
      })
      .prefault({}),
  },
};
