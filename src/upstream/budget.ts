/**
 * A token bucket per upstream: `rps` tokens per second, burst = half of rps (at least
 * one). The upstream's own limiter allows a burst of about rps; spending only half of it
 * leaves the rest for requests that arrive bunched up (an event loop busy for a moment,
 * several batches in flight), so they do not earn a 429. `high` waiters (the queue-size
 * poll, the lag check) go first, in arrival order; below them the polls (the wallet cycle,
 * `low`, before the jetton cycle, `jetton`) and read-through batches (`read`) take turns,
 * so neither side can starve the other.
 * `holdUntil` pauses the bucket when an upstream says Retry-After.
 */

export type RequestPriority = 'high' | 'low' | 'jetton' | 'read';

export interface RequestBudget {
  /** Resolves when a request may be sent; rejects with the signal's reason if aborted first. */
  acquire(priority: RequestPriority, signal?: AbortSignal): Promise<void>;
  /** No token is handed out before this time (ms since epoch). */
  holdUntil(timeMs: number): void;
  /** Waiters not yet served. */
  readonly waiting: number;
}

interface Waiter {
  readonly priority: RequestPriority;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

export function createRequestBudget(options: { rps: number; now: () => number }): RequestBudget {
  const { rps, now } = options;
  const capacity = Math.max(1, Math.floor(rps / 2));
  let tokens = capacity;
  let refilledAt = now();
  let heldUntil = 0;
  let timer: NodeJS.Timeout | undefined;
  const waiters: Waiter[] = [];
  /** Which of the two classes below `high` was served last: the other goes next when both wait. */
  let lastShared: RequestPriority = 'read';

  /** The waiter to serve next: the first high one, else the first of the side whose turn it is (polls: wallets before jettons). */
  const nextIndex = (): number => {
    if (waiters[0]?.priority === 'high') return 0;
    if (lastShared === 'read') {
      const wallets = waiters.findIndex((w) => w.priority === 'low');
      const polls = wallets === -1 ? waiters.findIndex((w) => w.priority === 'jetton') : wallets;
      if (polls !== -1) return polls;
    }
    const reads = waiters.findIndex((w) => w.priority === 'read');
    if (reads !== -1) return reads;
    const wallets = waiters.findIndex((w) => w.priority === 'low');
    return wallets === -1 ? 0 : wallets;
  };

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
    while (waiters.length > 0 && tokens >= 1 && now() >= heldUntil) {
      tokens -= 1;
      const [waiter] = waiters.splice(nextIndex(), 1);
      if (waiter !== undefined && waiter.priority !== 'high') lastShared = waiter.priority === 'read' ? 'read' : 'low';
      waiter?.signal?.removeEventListener('abort', waiter.onAbort);
      waiter?.resolve();
    }
    if (waiters.length === 0) return;
    const untilToken = tokens >= 1 ? 0 : ((1 - tokens) / rps) * 1000;
    const delay = Math.max(untilToken, heldUntil - now(), 1);
    timer = setTimeout(pump, Math.ceil(delay));
    timer.unref();
  };

  return {
    acquire(priority, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(abortReason(signal));
          return;
        }
        const waiter: Waiter = {
          priority,
          resolve,
          reject,
          signal,
          onAbort: () => {
            const index = waiters.indexOf(waiter);
            if (index !== -1) waiters.splice(index, 1);
            reject(abortReason(signal));
          },
        };
        signal?.addEventListener('abort', waiter.onAbort, { once: true });
        // High priority goes before every other waiter, after earlier high ones.
        const at = priority === 'high' ? waiters.findIndex((w) => w.priority !== 'high') : -1;
        if (at === -1) waiters.push(waiter);
        else waiters.splice(at, 0, waiter);
        pump();
      });
    },
    holdUntil(timeMs) {
      heldUntil = Math.max(heldUntil, timeMs);
    },
    get waiting() {
      return waiters.length;
    },
  };
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}
