import { describe, expect, it } from 'vitest';
import { createBatchQueue, createBatchSize, PROBE_EVERY_MS } from '../../src/poll/batches.js';

/** Runs batches through an upstream that refuses more than `limit` addresses, until the size settles; returns the refusals it took. */
function settle(size: ReturnType<typeof createBatchSize>, limit: number): number {
  let refusals = 0;
  for (let i = 0; i < 100 && !size.settled; i += 1) {
    const n = size.get();
    if (n <= limit) size.accepted(n);
    else {
      size.refused(n);
      refusals += 1;
    }
  }
  return refusals;
}

describe('batch size', () => {
  it('stays at walletBatchSize while nothing is refused', () => {
    const size = createBatchSize(1000);
    size.accepted(1000);
    expect(size.get()).toBe(1000);
    expect(size.settled).toBe(false);
  });

  it.each([1, 2, 61, 62, 149, 166, 500, 999])('finds the largest batch an upstream that refuses more than %i accepts, in few refusals', (limit) => {
    const size = createBatchSize(1000);
    const refusals = settle(size, limit);
    expect(size.settled).toBe(true);
    expect(size.get()).toBe(limit);
    // A binary search between 0 and 1000: about log2(1000) steps, not all of them refused.
    expect(refusals).toBeLessThanOrEqual(11);
  });

  it('now and then tries the smallest refused size again, and climbs when the limit was raised', () => {
    let clock = 0;
    const size = createBatchSize(1000, () => clock);
    settle(size, 166);
    expect(size.get()).toBe(166);
    clock += PROBE_EVERY_MS - 1;
    expect(size.get()).toBe(166);
    // The probe: one batch of the smallest refused size.
    clock += 1;
    expect(size.get()).toBe(167);
    size.refused(167);
    expect(size.get()).toBe(166);
    // Later, the proxy's limit has been raised to 400: the probe goes through, and the search climbs.
    clock += PROBE_EVERY_MS;
    expect(size.get()).toBe(167);
    size.accepted(167);
    expect(size.get()).toBe(1000);
    settle(size, 400);
    expect(size.get()).toBe(400);
  });
});

describe('batch queue', () => {
  it('cuts at the size in force when each batch is handed out, and hands a refused batch out again cut smaller', () => {
    const addresses = Array.from({ length: 10 }, (_, i) => `a${i}`);
    let size = 4;
    const queue = createBatchQueue(addresses, { get: () => size });
    const first = queue.next();
    expect(first).toEqual(['a0', 'a1', 'a2', 'a3']);
    expect(queue.remaining()).toBe(2);
    size = 3;
    queue.putBack(first ?? []);
    expect(queue.next()).toEqual(['a0', 'a1', 'a2']);
    expect(queue.next()).toEqual(['a3']);
    expect(queue.next()).toEqual(['a4', 'a5', 'a6']);
    expect(queue.next()).toEqual(['a7', 'a8', 'a9']);
    expect(queue.next()).toBeNull();
  });
});
