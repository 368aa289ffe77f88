import type { RequestPriority } from './budget.js';

/**
 * The requests waiting for an upstream's budget, in the order they are to be served:
 * `high` waiters (the queue-size poll, the lag check) first, in arrival order; below them
 * the polls (the wallet cycle, `low`, before the jetton cycle, `jetton`) and read-through
 * batches (`read`) take turns, so neither side can starve the other. A waiter whose
 * signal aborts leaves the queue and its promise rejects with the signal's reason.
 */
export interface WaiterQueue {
  /** Resolves when release() reaches it. `added` is called once it is queued. */
  wait(priority: RequestPriority, signal: AbortSignal | undefined, added: () => void): Promise<void>;
  /** The priority of the waiter release() would serve; undefined when none waits. */
  peek(): RequestPriority | undefined;
  /** Serves the next waiter. */
  release(): void;
  readonly length: number;
}

interface Waiter {
  readonly priority: RequestPriority;
  readonly resolve: () => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

export function createWaiterQueue(): WaiterQueue {
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

  return {
    wait(priority, signal, added) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(abortReason(signal));
          return;
        }
        const waiter: Waiter = {
          priority,
          resolve,
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
        added();
      });
    },
    peek: () => waiters[waiters.length === 0 ? 0 : nextIndex()]?.priority,
    release() {
      if (waiters.length === 0) return;
      const [waiter] = waiters.splice(nextIndex(), 1);
      if (waiter === undefined) return;
      if (waiter.priority !== 'high') lastShared = waiter.priority === 'read' ? 'read' : 'low';
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve();
    },
    get length() {
      return waiters.length;
    },
  };
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}
