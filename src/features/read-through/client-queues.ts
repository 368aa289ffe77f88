/**
 * The addresses read-through is to fetch, a queue per client address, and how many each
 * client holds (queued or in flight, until settled). A batch takes one address from each
 * queue in turn, starting after the client the last batch started with: a client with a
 * backlog of thousands gets one address in a batch for each the others get.
 */
export interface ClientQueues {
  /** Queues `raw` for `client`, held by it until settled. */
  add(raw: string, client: string): void;
  /** Puts a taken address back at the front of its client's queue (a batch refused as too long). */
  putBack(raw: string, client: string): void;
  /** Up to `max` addresses, taken from the queues in turn. */
  take(max: number): string[];
  /** Every queued address (shutdown, a failed drain). */
  takeAll(): string[];
  /** One address of `client`'s was answered (or failed). */
  settled(client: string): void;
  /** Addresses `client` holds, queued or in flight. */
  held(client: string): number;
  /** Clients holding any. */
  holders(): number;
  /** Addresses queued, not yet taken. */
  readonly size: number;
}

export function createClientQueues(): ClientQueues {
  /** Queues in turn order: a client's queue goes to the back once a batch has started with it. */
  const queues = new Map<string, string[]>();
  const held = new Map<string, number>();
  let size = 0;

  const queueOf = (client: string): string[] => {
    let queue = queues.get(client);
    if (queue === undefined) {
      queue = [];
      queues.set(client, queue);
    }
    return queue;
  };

  return {
    add(raw, client) {
      queueOf(client).push(raw);
      held.set(client, (held.get(client) ?? 0) + 1);
      size += 1;
    },
    putBack(raw, client) {
      queueOf(client).unshift(raw);
      size += 1;
    },
    take(max) {
      const batch: string[] = [];
      const first = queues.keys().next();
      while (batch.length < max && queues.size > 0) {
        for (const [client, queue] of queues) {
          const raw = queue.shift();
          if (raw !== undefined) batch.push(raw);
          if (queue.length === 0) queues.delete(client);
          if (batch.length === max) break;
        }
      }
      // The client this batch started with goes last for the next one.
      if (first.done !== true) {
        const queue = queues.get(first.value);
        if (queue !== undefined) {
          queues.delete(first.value);
          queues.set(first.value, queue);
        }
      }
      size -= batch.length;
      return batch;
    },
    takeAll() {
      const all = [...queues.values()].flat();
      queues.clear();
      size = 0;
      return all;
    },
    settled(client) {
      const left = (held.get(client) ?? 1) - 1;
      if (left <= 0) held.delete(client);
      else held.set(client, left);
    },
    held: (client) => held.get(client) ?? 0,
    holders: () => held.size,
    get size() {
      return size;
    },
  };
}
