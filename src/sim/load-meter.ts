/**
 * What the simulator's HTTP face was asked, for tests and drills of several clients on
 * one API key (a cluster's replicas): the most API requests that arrived within any one
 * second (a sliding window), and how often each address was asked for, by its raw form
 * (walletStates takes repeated and comma-separated `address` parameters in any form).
 * Read and reset through /_sim/load.
 */
export interface LoadMeter {
  /** An API request arrived at `at` (ms), asking for `addresses` (walletStates' address parameters). */
  arrived(at: number, addresses: readonly string[]): void;
  read(): { maxPerSecond: number; requests: number; addresses: Record<string, number> };
  reset(): void;
}

export function createLoadMeter(rawOf: (address: string) => string | null): LoadMeter {
  let window: number[] = [];
  let head = 0;
  let maxPerSecond = 0;
  let requests = 0;
  let addresses = new Map<string, number>();
  return {
    arrived(at, asked) {
      requests += 1;
      window.push(at);
      while ((window[head] as number) <= at - 1000) head += 1;
      if (head > 4096) {
        window = window.slice(head);
        head = 0;
      }
      maxPerSecond = Math.max(maxPerSecond, window.length - head);
      for (const param of asked) {
        for (const text of param.split(',')) {
          const address = rawOf(text.trim()) ?? text;
          addresses.set(address, (addresses.get(address) ?? 0) + 1);
        }
      }
    },
    read: () => ({ maxPerSecond, requests, addresses: Object.fromEntries(addresses) }),
    reset() {
      window = [];
      head = 0;
      maxPerSecond = 0;
      requests = 0;
      addresses = new Map();
    },
  };
}
