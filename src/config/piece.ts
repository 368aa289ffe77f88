import type * as z from 'zod';
import type { Config } from '../domain/config.js';

/**
 * A feature's keys of the config file (features/<name>/config.ts), put together with the
 * core's by config/schema.ts. Each key's value is on Config as its schema gives it; the
 * feature declares its type there (domain/config.ts says how). Every key is strict and
 * has its defaults, as the core's.
 */
export interface ConfigPiece {
  /** Top-level keys: each one's schema. */
  readonly keys?: Readonly<Record<string, z.ZodType>>;
  /** Keys of `schedule:`, each with its default cron expression. */
  readonly schedules?: Readonly<Record<string, string>>;
  /**
   * Keys of a `watchlist:` entry, and of the object form of a `watchlistFiles:` entry
   * (whose values go to every wallet of the file). Each watched wallet has them (undefined
   * where not given); duplicates merge them: lists united, records joined (the first
   * entry's keys winning), other values the first entry's.
   */
  readonly watchlistKeys?: Readonly<Record<string, z.ZodType>>;
  readonly watchlistFileKeys?: Readonly<Record<string, z.ZodType>>;
  /** Checks across the whole parsed file (names one key refers to, defined by another). */
  refine?(file: Readonly<Record<string, unknown>>, ctx: z.RefinementCtx): void;
  /** Its keys as check-config prints them; default: as they are on Config. */
  printable?(config: Config): Readonly<Record<string, unknown>>;
}
