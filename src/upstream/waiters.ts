/** Who waits for an upstream's budget, highest first: see WaiterQueue. */
export type RequestPriority = 'high' | 'chain' | 'low' | 'jetton' | 'read';

/**
 * The requests waiting for an upstream's budget, in the order they are to be served:
 * `high` waiters (the queue-size poll, the lag check) first, in arrival order; below them
 * the polls (the chain heads and validators, `chain`, before the wallet cycle, `low`,
 * before the jetton cycle, `jetton`) and read-through
 * batches (`read`). Read-through spends what the polls leave: a token no poll waits for
 * when the bucket holds more than half its burst (the rest is kept for the polls' next
 * cycle), and one turn after every POLL_TURNS_PER_READ of the polls' while both wait. So a
 * read-through flood slows a wallet cycle by a sixteenth and half a burst at most, and
 * neither side is ever starved. A waiter whose
 * signal aborts leaves the queue and its promise rejects with the signal's reason.
 */
export interface WaiterQueue {
  /** Resolves when release() reaches it. `added` is called once it is queued. */
  wait(priority: RequestPriority, signal: AbortSignal | undefined, added: () => void): Promise<void>;
  /** The priority of the waiter release() would serve (the bucket full); undefined when none waits. */
  peek(): RequestPriority | undefined;
  /**
   * Serves the next waiter, if any may be served: `spare` says whether read-through may take
   * a token outside its turn (the bucket holds more than the polls keep; default true).
   * False when none was served.
   */
  release(spare?: boolean): boolean;
  readonly length: number;
}

interface Waiter {
  readonly priority: RequestPriority;
  readonly resolve: () => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/** Poll turns between two read-through turns, while both wait. */
export const POLL_TURNS_PER_READ = 16;

export function createWaiterQueue(): WaiterQueue {
  const waiters: Waiter[] = [];
  /** Poll turns since read-through's last turn. */
  let pollTurns = 0;

  const firstOf = (priority: RequestPriority): number | undefined => {
    const index = waiters.findIndex((w) => w.priority === priority);
    return index === -1 ? undefined : index;
  };

  /** The waiter to serve next (-1: none may be): the first high one, else a poll (wallets before jettons) or read-through, as above. */
  const nextIndex = (spare: boolean): number => {
    if (waiters[0]?.priority === 'high') return 0;
    const poll = firstOf('chain') ?? firstOf('low') ?? firstOf('jetton') ?? -1;
    const read = waiters.findIndex((w) => w.priority === 'read');
    const readsTurn = pollTurns >= POLL_TURNS_PER_READ;
    if (poll === -1) return read !== -1 && (spare || readsTurn) ? read : -1;
    return read !== -1 && readsTurn ? read : poll;
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
    peek: () => waiters[waiters.length === 0 ? 0 : nextIndex(true)]?.priority,
    release(spare = true) {
      const index = nextIndex(spare);
      if (index === -1) return false;
      const [waiter] = waiters.splice(index, 1);
      if (waiter === undefined) return false;
      if (waiter.priority === 'read') pollTurns = 0;
      else if (waiter.priority !== 'high') pollTurns += 1;
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve();
      return true;
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
