import { burstOf, type RequestBudget } from '../upstream/budget.js';
import { createWaiterQueue } from '../upstream/waiters.js';

/** Tokens from an upstream's bucket in Redis (scripts.ts TAKE_TOKENS); rejects when Redis cannot be asked. */
export interface SharedBucket {
  /** Whether Redis is connected now; while not, the budget falls back to its share. */
  available(): boolean;
  take(want: number, reserve: number, holdMs: number): Promise<{ granted: number; waitMs: number }>;
}

export interface ClusterBudgetOptions {
  readonly rps: number;
  readonly now: () => number;
  readonly bucket: SharedBucket;
  /** Live members at the last heartbeat: without Redis, this replica spends 1/members of the budget. */
  readonly members: () => number;
  /** Told once per change whether tokens come from Redis or from the fallback share. */
  readonly onFallback?: (fallingBack: boolean) => void;
}

/**
 * The budget while Redis cannot be asked: a local bucket of this replica's share, rps/members
 * a second and burst/members (at least one), started empty when the fallback begins.
 */
function createFallbackShare(
  options: ClusterBudgetOptions,
  capacity: number,
): { fellBack(fallback: boolean): void; release(waiters: ReturnType<typeof createWaiterQueue>, heldUntil: number): number | null } {
  const { rps, now } = options;
  let fallingBack = false;
  const local = { tokens: 0, at: now() };
  const fellBack = (fallback: boolean): void => {
    if (fallingBack === fallback) return;
    fallingBack = fallback;
    if (fallback) {
      local.tokens = 0;
      local.at = now();
    }
    options.onFallback?.(fallback);
  };
  return {
    fellBack,
    /** Releases the waiters the share has tokens for; the milliseconds until the next one may go, or null when none waits. */
    release(waiters, heldUntil) {
      fellBack(true);
      const share = Math.max(1, options.members());
      const rate = rps / share;
      const t = now();
      local.tokens = Math.min(Math.max(1, capacity / share), local.tokens + ((t - local.at) / 1000) * rate);
      local.at = t;
      while (waiters.length > 0 && local.tokens >= 1 && t >= heldUntil) {
        local.tokens -= 1;
        waiters.release();
      }
      return waiters.length > 0 ? Math.max(((1 - local.tokens) / rate) * 1000, heldUntil - t) : null;
    },
  };
}

/**
 * One upstream's budget shared by every replica: the bucket (rps a second, a burst of
 * burstOf(rps)) lives in Redis, so N replicas together send no more than one process
 * would. Each replica orders its own waiters as one process does (waiters.ts); across
 * replicas, polls and read-through leave one token in the bucket when it can hold two, so
 * whichever replica polls the queue sizes finds it. At most one request to Redis at a
 * time per upstream asks for as many tokens as there are waiters.
 *
 * While Redis cannot be asked, the replica keeps going on its last known share: a local
 * bucket of rps/members a second and burst/members (at least one).
 */
export function createClusterBudget(options: ClusterBudgetOptions): RequestBudget {
  const { rps, now, bucket } = options;
  const capacity = burstOf(rps);
  const reserveBelowHigh = capacity >= 2 ? 1 : 0;
  const waiters = createWaiterQueue();
  let asking = false;
  let timer: NodeJS.Timeout | undefined;
  let holdMs = 0;
  let heldUntil = 0;
  const fallback = createFallbackShare(options, capacity);

  const schedule = (delayMs: number): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(
      () => {
        timer = undefined;
        pump();
      },
      Math.max(1, Math.ceil(delayMs)),
    );
    timer.unref();
  };

  /** Without Redis: this replica's share of the bucket. */
  const pumpLocally = (): void => {
    const delayMs = fallback.release(waiters, heldUntil);
    if (delayMs !== null) schedule(delayMs);
  };

  const pump = (): void => {
    if (asking || waiters.length === 0) return;
    if (!bucket.available()) {
      pumpLocally();
      return;
    }
    asking = true;
    const want = Math.min(waiters.length, capacity);
    const reserve = waiters.peek() === 'high' ? 0 : reserveBelowHigh;
    const hold = holdMs;
    holdMs = 0;
    bucket.take(want, reserve, hold).then(
      ({ granted, waitMs }) => {
        asking = false;
        fallback.fellBack(false);
        for (let i = 0; i < granted; i += 1) waiters.release();
        if (waiters.length > 0) schedule(granted === want ? 0 : waitMs);
      },
      () => {
        asking = false;
        holdMs = Math.max(holdMs, hold);
        pumpLocally();
      },
    );
  };

  return {
    acquire: (priority, signal) => waiters.wait(priority, signal, pump),
    holdUntil(timeMs) {
      heldUntil = Math.max(heldUntil, timeMs);
      holdMs = Math.max(holdMs, timeMs - now());
    },
    get waiting() {
      return waiters.length;
    },
  };
}
