import { createWaiterQueue, type RequestPriority } from './waiters.js';

/**
 * A token bucket per upstream: `rps` tokens per second, burst = half of rps (at least
 * one). The upstream's own limiter allows a burst of about rps; spending only half of it
 * leaves the rest for requests that arrive bunched up (an event loop busy for a moment,
 * several batches in flight), so they do not earn a 429. Waiters are served in the
 * priority order of waiters.ts. `holdUntil` pauses the bucket when an upstream says
 * Retry-After. In a cluster, the bucket is shared through Redis (cluster/budget.ts).
 */

export type { RequestPriority } from './waiters.js';

export interface RequestBudget {
  /** Resolves when a request may be sent; rejects with the signal's reason if aborted first. */
  acquire(priority: RequestPriority, signal?: AbortSignal): Promise<void>;
  /** No token is handed out before this time (process clock, ms). */
  holdUntil(timeMs: number): void;
  /** Waiters not yet served. */
  readonly waiting: number;
}

/** The burst of a bucket of `rps`: half a second's worth, at least one. */
export function burstOf(rps: number): number {
  return Math.max(1, Math.floor(rps / 2));
}

export function createRequestBudget(options: { rps: number; now: () => number }): RequestBudget {
  const { rps, now } = options;
  const capacity = burstOf(rps);
  /** Half the burst is the polls': read-through outside its turn leaves it in the bucket for their next cycle. */
  const keptForPolls = Math.floor(capacity / 2);
  let tokens = capacity;
  let refilledAt = now();
  let heldUntil = 0;
  let timer: NodeJS.Timeout | undefined;
  const waiters = createWaiterQueue();

  const refill = (): void => {
    const t = now();
    tokens = Math.min(capacity, tokens + ((t - refilledAt) / 1000) * rps);
    refilledAt = t;
  };

  const pump = (): void => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    refill();
    while (waiters.length > 0 && tokens >= 1 && now() >= heldUntil && waiters.release(tokens - 1 >= keptForPolls)) tokens -= 1;
    if (waiters.length === 0) return;
    // A token left unserved: only read-through waits, outside its turn, until the bucket holds more than the polls' half.
    const untilToken = (((tokens >= 1 ? keptForPolls + 1 : 1) - tokens) / rps) * 1000;
    const delay = Math.max(untilToken, heldUntil - now(), 1);
    timer = setTimeout(pump, Math.ceil(delay));
    timer.unref();
  };

  return {
    acquire: (priority, signal) => waiters.wait(priority, signal, pump),
    holdUntil(timeMs) {
      heldUntil = Math.max(heldUntil, timeMs);
    },
    get waiting() {
      return waiters.length;
    },
  };
}
