/**
 * How a wallet cycle cuts the watchlist into walletStates requests: the batch size in
 * force, remembered across cycles, and the queue of batches of one pass.
 */

/** How long a learnt limit is trusted before a batch one larger is tried again, in case a proxy's limit was raised. */
export const PROBE_EVERY_MS = 60 * 60 * 1000;

/**
 * The batch size in force. Starts at walletBatchSize; after a 414/431 it searches for the
 * largest batch the upstream accepts (between the largest accepted and the smallest
 * refused, halving the gap each time), remembers it across cycles, and now and then
 * (PROBE_EVERY_MS) tries the smallest refused size again.
 */
export interface BatchSize {
  /** The size to cut the next batch at. */
  get(): number;
  /** A batch of `size` addresses went through. */
  accepted(size: number): void;
  /** A batch of `size` addresses was refused as too long; returns the size now in force. */
  refused(size: number): number;
  /** True once the largest accepted size is known (the search has ended). */
  readonly settled: boolean;
}

export function createBatchSize(max: number, now: () => number = Date.now): BatchSize {
  /** Largest size known to go through (0: none yet). */
  let fits = 0;
  /** Smallest size known to be refused (Infinity: none). */
  let refusedAt = Infinity;
  let refusedAtTime = 0;
  const get = (): number => {
    if (refusedAt === Infinity) return max;
    if (refusedAt - fits > 1) return Math.max(1, Math.floor((fits + refusedAt) / 2));
    // Settled: the smallest refused size gets another chance once in a while.
    if (fits > 0 && now() - refusedAtTime >= PROBE_EVERY_MS) return refusedAt;
    return Math.max(1, fits);
  };
  return {
    get,
    accepted(size) {
      fits = Math.max(fits, size);
      // The limit was raised (a probe went through): search upward again.
      if (size >= refusedAt) refusedAt = Infinity;
    },
    refused(size) {
      refusedAt = Math.min(refusedAt, size);
      refusedAtTime = now();
      return get();
    },
    get settled() {
      return refusedAt !== Infinity && refusedAt - fits <= 1;
    },
  };
}

/** Batches of a list of addresses, cut at the size in force when each is handed out. */
export interface BatchQueue {
  /** The next batch: a refused one first, split to the size now in force; null when none is left. */
  next(): string[] | null;
  /** A batch refused as too long, to be handed out again at the (smaller) size in force. */
  putBack(batch: readonly string[]): void;
  /** Batches still to hand out at the size in force. */
  remaining(): number;
}

export function createBatchQueue(addresses: readonly string[], batchSize: Pick<BatchSize, 'get'>): BatchQueue {
  const refused: (readonly string[])[] = [];
  let offset = 0;
  return {
    next() {
      const size = batchSize.get();
      const again = refused.shift();
      if (again !== undefined) {
        if (again.length > size) refused.unshift(again.slice(size));
        return again.slice(0, size);
      }
      if (offset >= addresses.length) return null;
      const batch = addresses.slice(offset, offset + size);
      offset += batch.length;
      return batch;
    },
    putBack(batch) {
      refused.push(batch);
    },
    remaining() {
      const size = batchSize.get();
      const again = refused.reduce((sum, batch) => sum + Math.ceil(batch.length / size), 0);
      return again + Math.ceil((addresses.length - offset) / size);
    },
  };
}
