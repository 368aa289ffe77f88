import { describe, expect, it } from 'vitest';
import { createBatchQueue, createBatchSize, DEFAULT_REQUEST_LINE_BYTES, PROBE_EVERY_MS, type BatchSize } from '../../src/accounts/batches.js';

/** A walletStates request line to toncenter: the path, `address=`, 48 characters an address and commas. */
const requestLine = (count: number) => 'GET /api/v3/walletStates?address='.length + 49 * count - 1 + ' HTTP/1.1\r\n'.length;

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

/** A batch size fixed by the test, for the queue alone: no search, nothing to wait for. */
function sized(get: () => number): Pick<BatchSize, 'get' | 'untried' | 'turn'> {
  return { get, untried: () => undefined, turn: () => null };
}

describe('a probe that does not try its size', () => {
  it('is given up when its batch fails otherwise, and the next probe goes out', () => {
    const size = createBatchSize(1000, () => 0, requestLine);
    size.accepted(166);
    expect(size.get('poll', 5000)).toBe(332);
    // A 502, a timeout, a stopped cycle: nothing learnt about 332, and no probe left hanging.
    size.untried(332);
    expect(size.get('poll', 5000)).toBe(332);
  });

  it('is no larger than what is left, so its batch tries the size it was cut at', () => {
    const size = createBatchSize(1000, () => 0, requestLine);
    size.accepted(166);
    expect(size.get('poll', 250)).toBe(250);
    size.accepted(250);
    expect(size.get('poll', 5000)).toBe(500);
  });
});

/**
 * One pass of `count` addresses by eight batches in flight, as the wallet poll runs it,
 * through an upstream that refuses more than `limit` addresses (and fails the calls
 * `failing` names); returns each call's batch length, and the most calls in flight at once.
 */
async function pass(size: BatchSize, count: number, limit: number, failing: (call: number) => boolean = () => false) {
  const queue = createBatchQueue(
    Array.from({ length: count }, (_, i) => `a${i}`),
    size,
  );
  const calls: number[] = [];
  let inFlight = 0;
  let most = 0;
  const worker = async (): Promise<void> => {
    for (let batch = await queue.next(); batch !== null; batch = await queue.next()) {
      const call = calls.push(batch.length);
      most = Math.max(most, (inFlight += 1));
      await new Promise((answer) => setTimeout(answer, 1));
      inFlight -= 1;
      if (failing(call)) size.untried(batch.length);
      else if (batch.length <= limit) size.accepted(batch.length);
      else {
        size.refused(batch.length);
        queue.putBack(batch);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { calls, most };
}

describe('batch size while it is being learnt, eight batches in flight', () => {
  it('climbs one batch at a time, so no batch goes out cut at a size about to be outgrown', async () => {
    const size = createBatchSize(1000, () => 0, requestLine);
    const first = await pass(size, 100_000, Infinity);
    // 166, 332 and 664, then batches of 1000: 102 calls, where 100 would do.
    expect(first.calls.slice(0, 4)).toEqual([166, 332, 664, 1000]);
    expect(first.calls.length).toBe(102);
    expect(first.most).toBe(8);
    // Learnt: the next pass starts at 1000, all eight in flight.
    const second = await pass(size, 100_000, Infinity);
    expect(second.calls.length).toBe(100);
  });

  it('keeps all eight in flight from the start for an upstream without a URL limit (a liteserver)', async () => {
    const { calls, most } = await pass(createBatchSize(1000), 10_000, Infinity);
    expect(calls.length).toBe(10);
    expect(most).toBe(8);
  });

  it('behind an 8 KiB proxy, learns the limit from one refused probe, then keeps all eight in flight', async () => {
    const size = createBatchSize(1000, () => 0, requestLine);
    const { calls, most } = await pass(size, 10_000, 166);
    expect(calls.filter((n) => n > 166)).toEqual([332]);
    expect(calls.length).toBe(Math.ceil(10_000 / 166) + 1);
    expect(most).toBe(8);
  });

  it('under 8 KiB, searches one refusal at a time', async () => {
    const size = createBatchSize(1000, () => 0, requestLine);
    const { calls } = await pass(size, 10_000, 80);
    expect(calls.filter((n) => n > 80).length).toBeLessThanOrEqual(8);
    expect(size.get('read')).toBe(80);
  });

  it('lets the others go on when the batch they wait for fails otherwise', async () => {
    const size = createBatchSize(1000, () => 0, requestLine);
    // The start and the first probe fail (a 502, say): the pass still ends, and the climb goes on.
    const { calls } = await pass(size, 10_000, Infinity, (call) => call <= 2);
    expect(calls.slice(0, 4)).toEqual([166, 166, 166, 332]);
    expect(size.get('read')).toBe(1000);
  });
});

describe('batch queue', () => {
  it('cuts at the size in force when each batch is handed out, and hands a refused batch out again cut smaller', async () => {
    const addresses = Array.from({ length: 10 }, (_, i) => `a${i}`);
    let size = 4;
    const queue = createBatchQueue(
      addresses,
      sized(() => size),
    );
    const first = await queue.next();
    expect(first).toEqual(['a0', 'a1', 'a2', 'a3']);
    expect(queue.remaining()).toBe(2);
    size = 3;
    queue.putBack(first ?? []);
    expect(await queue.next()).toEqual(['a0', 'a1', 'a2']);
    expect(await queue.next()).toEqual(['a3']);
    expect(await queue.next()).toEqual(['a4', 'a5', 'a6']);
    expect(await queue.next()).toEqual(['a7', 'a8', 'a9']);
    expect(await queue.next()).toBeNull();
  });

  it('hands out the addresses given first ahead of the rest, taken as each batch is cut, and counts them in what remains', async () => {
    const addresses = Array.from({ length: 6 }, (_, i) => `a${i}`);
    const given: string[][] = [[], ['t0', 't1', 't2', 't3'], [], ['t4']];
    const dropped = new Set(['t2']);
    const queue = createBatchQueue(
      addresses,
      sized(() => 3),
      { first: () => given.shift() ?? [], wanted: (a) => !dropped.has(a) },
    );
    expect(await queue.next()).toEqual(['a0', 'a1', 'a2']);
    // Taken over since: asked next, the one no longer wanted left out, the batch filled from the rest.
    expect(await queue.next()).toEqual(['t0', 't1', 't3']);
    expect(queue.remaining()).toBe(1);
    expect(await queue.next()).toEqual(['a3', 'a4', 'a5']);
    expect(await queue.next()).toEqual(['t4']);
    expect(await queue.next()).toBeNull();
  });

  it('leaves out the addresses no longer wanted when each batch is cut, and ends when none is left', async () => {
    const addresses = Array.from({ length: 10 }, (_, i) => `a${i}`);
    const dropped = new Set<string>();
    const queue = createBatchQueue(
      addresses,
      sized(() => 3),
      { wanted: (a) => !dropped.has(a) },
    );
    expect(await queue.next()).toEqual(['a0', 'a1', 'a2']);
    // A member joined: it owns a4, a5 and a7 now.
    for (const a of ['a4', 'a5', 'a7']) dropped.add(a);
    expect(await queue.next()).toEqual(['a3', 'a6', 'a8']);
    for (const a of ['a9']) dropped.add(a);
    expect(await queue.next()).toBeNull();
  });
});
