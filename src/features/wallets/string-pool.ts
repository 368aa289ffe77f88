import { createInterning, type Interning } from '../../domain/interning.js';
import type { DerivedBook } from '../../accounts/address-book.js';
import { createStatePacker, type StatePacker } from '../../accounts/packed-state.js';
import { createHeldPartsMemo, type HeldPartsMemo } from './file-packed.js';

/**
 * Values seen before, to keep one copy of each: JSON.parse makes a new string for every
 * value, and 100,000 wallets repeat a few code hashes, statuses, wallet types, upstream
 * names and address book entries (accounts/address-book.ts). Bounded by its interning:
 * one pool serves a load of the file, or a replica's records from the others for as long
 * as it runs (wire.ts).
 */
export interface StringPool {
  readonly interning: Interning;
  /** The string already held for a raw address (the watched wallet's), if any: a record read keeps that one, not a copy. */
  readonly keyOf: (raw: string) => string | undefined;
  /** The last value kept for each pooled column: wallets in a row mostly repeat it, and comparing costs less than hashing. */
  readonly last: (string | undefined)[];
  /** The last derived address book entry, by its form's first character (heldBookAsRecent). */
  readonly books: Map<string, DerivedBook>;
  /** Kinds and entries read from version 6 columns, each made once (file-packed.ts). */
  readonly held: HeldPartsMemo;
  /** Packs the states read as they came (versions before 6, and the wire). */
  readonly pack: StatePacker;
}

export function createStringPool(interning: Interning = createInterning(), keyOf: (raw: string) => string | undefined = () => undefined): StringPool {
  return { interning, keyOf, last: [], books: new Map(), held: createHeldPartsMemo(interning), pack: createStatePacker(interning) };
}

export const pooled = (pool: StringPool, column: number, value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  const last = pool.last[column];
  if (value === last) return last;
  const known = pool.interning.string(value);
  pool.last[column] = known;
  return known;
};
