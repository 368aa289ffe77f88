/**
 * How a wallet cycle cuts the watchlist into walletStates requests: the batch size in
 * force, remembered across cycles, and the queue of batches of one pass.
 */

/** The batch size in force; halves on 414/431 and remembers it across cycles. */
export interface BatchSize {
  get(): number;
  /** Halves the size (at least 1) and returns the new one. */
  shrink(): number;
}

export function createBatchSize(initial: number): BatchSize {
  let size = initial;
  return {
    get: () => size,
    shrink: () => (size = Math.max(1, Math.floor(size / 2))),
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

export function createBatchQueue(addresses: readonly string[], batchSize: BatchSize): BatchQueue {
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
