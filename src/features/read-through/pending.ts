import type { WalletRecord } from '../../accounts/types.js';
import { MAX_ADDRESSES_PER_REQUEST } from '../../domain/wallet-state.js';
import { createClientQueues } from './client-queues.js';

/** What became of one address asked for: its record (an unknown account's state is null), or why there is none. */
export type Outcome = { readonly ok: true; readonly record: WalletRecord } | { readonly ok: false; readonly error: string };

/**
 * The addresses read-through is fetching, queued or in flight, each with the requests
 * waiting for it, and each client's share of them: a client holds an address from the
 * first time it asks until it is settled.
 */
export interface PendingAddresses {
  /** The outcome of an address pending already; undefined when it is not. */
  outcomeOf(raw: string): Promise<Outcome> | undefined;
  /** Queues `raw` for `client`; resolves with its outcome. */
  add(raw: string, client: string): Promise<Outcome>;
  /** How many more addresses `client` may have pending now, `maxPendingAddresses` in all. */
  room(client: string, maxPendingAddresses: number): number;
  /** Up to `max` queued addresses, taken from the clients' queues in turn. */
  take(max: number): string[];
  /** Taken addresses back in front of their clients' queues (a batch refused as too long). */
  putBack(raws: readonly string[]): void;
  settle(raw: string, outcome: Outcome): void;
  /** Every pending address settled with `error` (shutdown, a failed drain). */
  failAll(error: string): void;
  /** Addresses queued, not yet taken. */
  readonly queued: number;
}

/**
 * The most pending addresses one client may hold while `otherClientsHolding` others hold
 * some: maxPendingAddresses less a reserve (one full request, at most a quarter), shared
 * equally. The reserve is room a client that comes next always finds.
 */
export function shareOf(maxPendingAddresses: number, otherClientsHolding: number): number {
  const reserve = Math.min(MAX_ADDRESSES_PER_REQUEST, Math.floor(maxPendingAddresses / 4));
  return Math.max(1, Math.floor((maxPendingAddresses - reserve) / (otherClientsHolding + 1)));
}

interface Pending {
  readonly promise: Promise<Outcome>;
  readonly resolve: (outcome: Outcome) => void;
  /** The client whose share it counts against: the first that asked. */
  readonly client: string;
}

export function createPendingAddresses(): PendingAddresses {
  const pending = new Map<string, Pending>();
  const queues = createClientQueues();
  const settle = (raw: string, outcome: Outcome): void => {
    const waiting = pending.get(raw);
    if (waiting === undefined) return;
    pending.delete(raw);
    queues.settled(waiting.client);
    waiting.resolve(outcome);
  };
  return {
    outcomeOf: (raw) => pending.get(raw)?.promise,
    add(raw, client) {
      let resolve!: (outcome: Outcome) => void;
      const promise = new Promise<Outcome>((r) => (resolve = r));
      pending.set(raw, { promise, resolve, client });
      queues.add(raw, client);
      return promise;
    },
    room(client, maxPendingAddresses) {
      const held = queues.held(client);
      const others = queues.holders() - (held > 0 ? 1 : 0);
      return Math.min(maxPendingAddresses - pending.size, shareOf(maxPendingAddresses, others) - held);
    },
    take: (max) => queues.take(max),
    putBack(raws) {
      for (const raw of raws) queues.putBack(raw, pending.get(raw)?.client ?? '');
    },
    settle,
    failAll(error) {
      queues.takeAll();
      for (const raw of [...pending.keys()]) settle(raw, { ok: false, error });
    },
    get queued() {
      return queues.size;
    },
  };
}
