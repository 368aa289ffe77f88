/**
 * How a wallet cycle cuts the watchlist into walletStates requests: the batch size in
 * force, remembered across cycles, and the queue of batches of one pass.
 */

/** How long a learnt limit is trusted before a larger batch is tried again, in case a proxy's limit was raised. */
export const PROBE_EVERY_MS = 60 * 60 * 1000;

/**
 * The request line most upstreams take: nginx's default header buffer (8 KiB), the commonest
 * limit in front of toncenter-compatible servers. Batches start at what fits in it.
 */
export const DEFAULT_REQUEST_LINE_BYTES = 8192;

/** Who asks for a batch: the wallet poll may probe for a larger limit; read-through, which clients wait on, never does. */
export type BatchPurpose = 'poll' | 'read';

/**
 * The batch size in force, remembered across cycles and shared by the wallet poll and
 * read-through. It starts at what fits in DEFAULT_REQUEST_LINE_BYTES (at walletBatchSize
 * for an upstream without a URL limit). A refusal (414/431) below that starts a search for
 * the largest batch the upstream accepts (between the largest accepted and the smallest
 * refused, halving the gap). Larger limits are learnt only by the wallet poll, with one
 * probe at a time, and only when a larger batch would help: at once while batches keep
 * going through, and once a probe was refused, again after PROBE_EVERY_MS.
 *
 * While the size is still being learnt, the wallet poll keeps one batch of a size not known
 * to fit in flight, and its other batches wait for that batch's answer (`turn`) rather than
 * go out cut at a size about to be outgrown or refused. Once the size has settled, an hourly
 * probe goes out beside batches of the size that fits.
 */
export interface BatchSize {
  /** The size to cut the next batch at; `wanted`: the addresses the caller has left (default: as many as the size). */
  get(purpose?: BatchPurpose, wanted?: number): number;
  /** A batch of `size` addresses went through. */
  accepted(size: number): void;
  /** A batch of `size` addresses was refused as too long; returns the size now in force. */
  refused(size: number): number;
  /** A poll batch cut at `size` did not try that size: it failed otherwise, its cycle stopped, or fewer addresses were left to fill it. */
  untried(size: number): void;
  /**
   * Null when the wallet poll, with `wanted` addresses left, may cut its next batch now;
   * else the batch it waits for, answered: ask again then, and cut in the same turn.
   */
  turn(wanted: number): Promise<void> | null;
  /** True once the largest accepted size is known (the search has ended). */
  readonly settled: boolean;
}

/**
 * @param max walletBatchSize: the most addresses in a batch.
 * @param requestLineBytes the request line of a batch of `count` addresses to the primary
 *   upstream, when it carries them in its URL; without it batches start at `max`.
 */
export function createBatchSize(max: number, now: () => number = Date.now, requestLineBytes?: (count: number) => number): BatchSize {
  const start = requestLineBytes === undefined ? max : largestWithin(max, requestLineBytes, DEFAULT_REQUEST_LINE_BYTES);
  /** Largest size known to go through (0: none yet). */
  let fits = 0;
  /** Smallest size known to be refused (Infinity: none), when, and whether it was a probe above a size that fits. */
  let ceiling = Infinity;
  let ceilingAt = 0;
  let ceilingWasProbe = false;
  /** The poll batch out at a size not known to fit (the start, a step of the search, a probe), until answered: one at a time. */
  let edge: number | null = null;
  /** Whether the edge batch is a probe above a size that fits (a refused probe ends the search; a refused step does not). */
  let edgeIsProbe = false;
  /** Poll workers waiting for the edge batch's answer. */
  const waiting: (() => void)[] = [];

  const midpoint = (): number => Math.max(1, Math.floor((fits + ceiling) / 2));
  /** The size without probing: the start, the search's next step, or the largest that fits. */
  const base = (): number => {
    if (ceiling === Infinity) return Math.max(fits, start);
    if (!ceilingWasProbe && ceiling - fits > 1) return midpoint();
    return Math.max(1, fits);
  };
  const settled = (): boolean => fits > 0 && ceiling !== Infinity && (ceilingWasProbe || ceiling - fits <= 1);
  const probeSize = (current: number): number | null => {
    if (edge !== null || current >= max || fits < current) return null;
    if (ceiling === Infinity) return Math.min(max, current * 2);
    if (now() - ceilingAt < PROBE_EVERY_MS) return null;
    return ceiling - fits > 1 ? midpoint() : ceiling;
  };
  /** A batch of `size` was answered or given up: the edge batch, if it is that one, no longer holds the others back. */
  const answered = (size: number): void => {
    if (edge === null || size < edge) return;
    edge = null;
    edgeIsProbe = false;
    for (const wake of waiting.splice(0)) wake();
  };
  /**
   * Wait while the edge batch is out and its answer decides the next size: climbing from a
   * start under `max` while more is wanted, or searching down after a refusal.
   */
  const held = (wanted: number): boolean => edge !== null && (ceiling === Infinity ? start < max && wanted > fits : !settled());
  return {
    get(purpose = 'read', wanted) {
      const current = base();
      if (purpose === 'read') return current;
      const asked = wanted ?? current;
      if (current > fits) {
        if (asked > fits) edge ??= Math.min(current, asked);
        return current;
      }
      if (asked <= current) return current;
      const larger = probeSize(current);
      if (larger === null) return current;
      edge = Math.min(larger, asked);
      edgeIsProbe = true;
      return edge;
    },
    accepted(size) {
      answered(size);
      fits = Math.max(fits, size);
      // The limit was raised (a probe went through): climb again.
      if (size >= ceiling) ceiling = Infinity;
    },
    refused(size) {
      const wasProbe = edgeIsProbe && edge !== null && size >= edge;
      answered(size);
      // Refused at or under what went through before: the limit was lowered; search again from nothing.
      if (size <= fits) fits = 0;
      if (size <= ceiling) {
        ceiling = size;
        ceilingWasProbe = wasProbe && fits > 0;
      }
      ceilingAt = now();
      return base();
    },
    untried: answered,
    turn(wanted) {
      return held(wanted) ? new Promise<void>((wake) => waiting.push(wake)) : null;
    },
    get settled() {
      return settled();
    },
  };
}

/** The most addresses, up to `max`, whose request line fits in `bytes` (at least 1). */
function largestWithin(max: number, requestLineBytes: (count: number) => number, bytes: number): number {
  let low = 1;
  let high = max;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (requestLineBytes(mid) <= bytes) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Batches of a list of addresses, cut at the size in force when each is handed out. */
export interface BatchQueue {
  /**
   * The next batch, once the batch size lets it be cut (BatchSize.turn): a refused one first,
   * split to the size now in force; null when none is left.
   */
  next(): Promise<string[] | null>;
  /** A batch refused as too long, to be handed out again at the (smaller) size in force. */
  putBack(batch: readonly string[]): void;
  /** Batches still to hand out at the size in force. */
  remaining(): number;
}

/** What a queue asks of its caller as it cuts each batch (both optional). */
export interface BatchQueueSources {
  /**
   * Whether an address is still to be asked when its batch is cut (default: all are): a
   * cluster replica's cycle leaves out the wallets that members who joined since it began now own.
   */
  readonly wanted?: (address: string) => boolean;
  /** Addresses to ask before the rest, taken as each batch is cut (wallets a replica took over mid-cycle). */
  readonly first?: () => readonly string[];
}

export function createBatchQueue(
  addresses: readonly string[],
  batchSize: Pick<BatchSize, 'get' | 'untried' | 'turn'>,
  sources: BatchQueueSources = {},
): BatchQueue {
  const { wanted, first } = sources;
  const refused: (readonly string[])[] = [];
  const ahead: string[] = [];
  let offset = 0;
  const left = (): number => addresses.length - offset + ahead.length + refused.reduce((sum, batch) => sum + batch.length, 0);
  /** The next batch, cut at `size`. */
  const cut = (size: number): string[] => {
    const again = refused.shift();
    if (again !== undefined) {
      if (again.length > size) refused.unshift(again.slice(size));
      return again.slice(0, size);
    }
    const batch: string[] = [];
    const take = (address: string): void => {
      if (wanted === undefined || wanted(address)) batch.push(address);
    };
    let taken = 0;
    for (; taken < ahead.length && batch.length < size; taken += 1) take(ahead[taken] as string);
    ahead.splice(0, taken);
    for (; offset < addresses.length && batch.length < size; offset += 1) take(addresses[offset] as string);
    return batch;
  };
  return {
    async next() {
      // Asked again and cut in one go once woken: the first of the woken workers takes the next probe, the others wait for it.
      for (let wait = batchSize.turn(left()); wait !== null; wait = batchSize.turn(left())) await wait;
      for (const address of first?.() ?? []) ahead.push(address);
      const size = batchSize.get('poll', left());
      const batch = cut(size);
      // Fewer addresses were wanted than counted: this batch does not try `size`.
      if (batch.length < size) batchSize.untried(size);
      return batch.length === 0 ? null : batch;
    },
    putBack(batch) {
      refused.push(batch);
    },
    remaining() {
      const size = batchSize.get();
      const again = refused.reduce((sum, batch) => sum + Math.ceil(batch.length / size), 0);
      return again + Math.ceil(ahead.length / size) + Math.ceil((addresses.length - offset) / size);
    },
  };
}

/**
 * Batches to keep in flight for an upstream allowed `rps` requests per second: enough to
 * spend the whole budget while answers take up to half a second, at most 8. One at 1-2 rps.
 */
export function walletConcurrency(rps: number): number {
  return Math.min(8, Math.max(1, Math.ceil(rps / 2)));
}
