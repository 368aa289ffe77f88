import { describe, expect, it } from 'vitest';
import { createBatchQueue, createBatchSize, DEFAULT_REQUEST_LINE_BYTES, PROBE_EVERY_MS } from '../../src/accounts/batches.js';

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
    expect(size.get('poll', Infinity)).toBe(166);
    // The probe, by the wallet poll only: one batch of the smallest refused size. Read-through never probes.
    clock += 1;
    expect(size.get('read')).toBe(166);
    expect(size.get('poll', Infinity)).toBe(167);
    size.refused(167);
    expect(size.get('poll', Infinity)).toBe(166);
    // Later, the proxy's limit has been raised to 400: the probe goes through, and the search climbs.
    clock += PROBE_EVERY_MS;
    expect(size.get('poll', Infinity)).toBe(167);
    size.accepted(167);
    expect(size.get()).toBe(1000);
    settle(size, 400);
    expect(size.get()).toBe(400);
  });
});

describe('batch size by request line', () => {
  /** A walletStates request line to toncenter: the path, `address=`, 48 characters an address and commas. */
  const requestLine = (count: number) => 'GET /api/v3/walletStates?address='.length + 49 * count - 1 + ' HTTP/1.1\r\n'.length;

  it('starts at what fits in 8 KiB, not at walletBatchSize, for the poll and for read-through', () => {
    const size = createBatchSize(1000, () => 0, requestLine);
    expect(requestLine(166)).toBeLessThanOrEqual(DEFAULT_REQUEST_LINE_BYTES);
    expect(requestLine(167)).toBeGreaterThan(DEFAULT_REQUEST_LINE_BYTES);
    expect(size.get('read')).toBe(166);
    // Nothing known to fit yet: no probe either.
    expect(size.get('poll', 1000)).toBe(166);
    // walletBatchSize below that: walletBatchSize.
    expect(createBatchSize(100, () => 0, requestLine).get('read')).toBe(100);
  });

  it('learns a larger limit by the wallet poll alone, one probe at a time, only when a larger batch would help', () => {
    let clock = 0;
    const size = createBatchSize(1000, () => clock, requestLine);
    size.accepted(166);
    // A pass with no more than one batch left does not probe.
    expect(size.get('poll', 166)).toBe(166);
    expect(size.get('read')).toBe(166);
    // One probe of twice the size; the next batch meanwhile stays at the size that fits.
    expect(size.get('poll', 5000)).toBe(332);
    expect(size.get('poll', 5000)).toBe(166);
    size.accepted(332);
    expect(size.get('read')).toBe(332);
    expect(size.get('poll', 5000)).toBe(664);
    size.refused(664);
    // Refused: the size that went through stays, read-through's too; no search of 414s in between.
    expect(size.get('read')).toBe(332);
    expect(size.get('poll', 5000)).toBe(332);
    expect(size.settled).toBe(true);
    // An hour later, one more probe, between what fits and what was refused.
    clock += PROBE_EVERY_MS;
    expect(size.get('poll', 5000)).toBe(498);
    size.refused(498);
    expect(size.get('poll', 5000)).toBe(332);
  });

  it('searches down at once when the start is refused (an upstream under 8 KiB), for every caller', () => {
    const size = createBatchSize(1000, () => 0, requestLine);
    let refusals = 0;
    for (let i = 0; i < 50 && !size.settled; i += 1) {
      const n = size.get('read');
      if (n <= 80) size.accepted(n);
      else {
        size.refused(n);
        refusals += 1;
      }
    }
    expect(size.get('read')).toBe(80);
    expect(refusals).toBeLessThanOrEqual(8);
  });

  it('searches again from nothing when a size that went through is refused (the limit was lowered)', () => {
    const size = createBatchSize(1000, () => 0, requestLine);
    size.accepted(166);
    size.refused(166);
    expect(size.get('read')).toBe(83);
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

  it('hands out the addresses given first ahead of the rest, taken as each batch is cut, and counts them in what remains', () => {
    const addresses = Array.from({ length: 6 }, (_, i) => `a${i}`);
    const given: string[][] = [[], ['t0', 't1', 't2', 't3'], [], ['t4']];
    const dropped = new Set(['t2']);
    const queue = createBatchQueue(addresses, { get: () => 3 }, { first: () => given.shift() ?? [], wanted: (a) => !dropped.has(a) });
    expect(queue.next()).toEqual(['a0', 'a1', 'a2']);
    // Taken over since: asked next, the one no longer wanted left out, the batch filled from the rest.
    expect(queue.next()).toEqual(['t0', 't1', 't3']);
    expect(queue.remaining()).toBe(1);
    expect(queue.next()).toEqual(['a3', 'a4', 'a5']);
    expect(queue.next()).toEqual(['t4']);
    expect(queue.next()).toBeNull();
  });

  it('leaves out the addresses no longer wanted when each batch is cut, and ends when none is left', () => {
    const addresses = Array.from({ length: 10 }, (_, i) => `a${i}`);
    const dropped = new Set<string>();
    const queue = createBatchQueue(addresses, { get: () => 3 }, { wanted: (a) => !dropped.has(a) });
    expect(queue.next()).toEqual(['a0', 'a1', 'a2']);
    // A member joined: it owns a4, a5 and a7 now.
    for (const a of ['a4', 'a5', 'a7']) dropped.add(a);
    expect(queue.next()).toEqual(['a3', 'a6', 'a8']);
    for (const a of ['a9']) dropped.add(a);
    expect(queue.next()).toBeNull();
  });
});
