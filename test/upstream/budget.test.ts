import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRequestBudget } from '../../src/upstream/budget.js';

describe('request budget', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    // rps, grants in ms: a burst of half of rps (at least one), then one every 1/rps.
    [4, [0, 0, 250, 500, 750, 1000, 1250]],
    [1, [0, 1000, 2000, 3000, 4000, 5000, 6000]],
  ])('never hands out more than %d per second after a burst of half as many', async (rps, expected) => {
    const budget = createRequestBudget({ rps, now: () => Date.now() });
    const grantedAt: number[] = [];
    const all = Array.from({ length: 7 }, () => budget.acquire('low').then(() => grantedAt.push(Date.now())));
    await vi.advanceTimersByTimeAsync(8_000);
    await Promise.all(all);
    expect(grantedAt.map((t) => t - 1_000_000)).toEqual(expected);
  });

  it('serves high priority before queued low-priority waiters', async () => {
    const budget = createRequestBudget({ rps: 1, now: () => Date.now() });
    const order: string[] = [];
    await budget.acquire('low');
    const lows = [1, 2, 3].map((i) => budget.acquire('low').then(() => order.push(`low${i}`)));
    const high = budget.acquire('high').then(() => order.push('high'));
    expect(budget.waiting).toBe(4);
    await vi.advanceTimersByTimeAsync(4_000);
    await Promise.all([...lows, high]);
    expect(order).toEqual(['high', 'low1', 'low2', 'low3']);
  });

  it("keeps the queue-size poll's turn under the chain polls, which go before the wallet cycle", async () => {
    const budget = createRequestBudget({ rps: 1, now: () => Date.now() });
    const order: string[] = [];
    await budget.acquire('low');
    // A chain-heads poll's requests (one per shard) and a wallet cycle queued, then a queue-size poll arrives.
    const wallets = [1, 2].map((i) => budget.acquire('low').then(() => order.push(`wallets${i}`)));
    const chain = [1, 2, 3, 4].map((i) => budget.acquire('chain').then(() => order.push(`chain${i}`)));
    await vi.advanceTimersByTimeAsync(1_000);
    const queue = budget.acquire('high').then(() => order.push('queue_sizes'));
    await vi.advanceTimersByTimeAsync(8_000);
    await Promise.all([...wallets, ...chain, queue]);
    // The token of the first second went to the chain poll; the next to the queue-size poll, ahead of every chain request left.
    expect(order).toEqual(['chain1', 'queue_sizes', 'chain2', 'chain3', 'chain4', 'wallets1', 'wallets2']);
  });

  it('gives read-through one turn after every sixteen of the wallet batches below high priority, neither starving the other', async () => {
    const budget = createRequestBudget({ rps: 1, now: () => Date.now() });
    const order: string[] = [];
    await budget.acquire('low');
    const waiting = [
      ...Array.from({ length: 20 }, (_, i) => budget.acquire('low').then(() => order.push(`low${i + 1}`))),
      ...[1, 2].map((i) => budget.acquire('read').then(() => order.push(`read${i}`))),
    ];
    const high = budget.acquire('high').then(() => order.push('high'));
    await vi.advanceTimersByTimeAsync(24_000);
    await Promise.all([...waiting, high]);
    // The first wallet batch above was a poll turn too.
    const lows = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `low${from + i}`);
    expect(order).toEqual(['high', ...lows(1, 15), 'read1', ...lows(16, 20), 'read2']);
  });

  it('keeps half the burst for the polls: read-through takes a token no poll waits for only while the bucket holds more', async () => {
    const budget = createRequestBudget({ rps: 8, now: () => Date.now() });
    const served: number[] = [];
    const started = Date.now();
    const reads = Array.from({ length: 4 }, () => budget.acquire('read').then(() => served.push(Date.now() - started)));
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all(reads);
    // A bucket of 4, 2 of them the polls': two at once, each next once the bucket holds 3 again (1/8 s).
    expect(served).toEqual([0, 0, 125, 250]);
    // The polls' burst is there when they come: four at once.
    const polls = Array.from({ length: 4 }, () => budget.acquire('low').then(() => served.push(Date.now() - started)));
    await vi.advanceTimersByTimeAsync(0);
    await Promise.all(polls);
    expect(served.slice(4)).toEqual([1000, 1000, 1000, 1000]);
  });

  it("serves jetton batches after wallet batches on the polls' turns, read-through's turn coming after sixteen of them", async () => {
    const budget = createRequestBudget({ rps: 1, now: () => Date.now() });
    const order: string[] = [];
    await budget.acquire('low');
    const waiting = [
      ...[1, 2].map((i) => budget.acquire('jetton').then(() => order.push(`jetton${i}`))),
      ...[1, 2].map((i) => budget.acquire('low').then(() => order.push(`low${i}`))),
      ...[1, 2, 3].map((i) => budget.acquire('read').then(() => order.push(`read${i}`))),
    ];
    const high = budget.acquire('high').then(() => order.push('high'));
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all([...waiting, high]);
    // On the polls' turns the wallet batches go before the jetton batches that came first.
    expect(order).toEqual(['high', 'low1', 'low2', 'jetton1', 'jetton2', 'read1', 'read2', 'read3']);
  });

  it('holds every request until a Retry-After passes', async () => {
    const budget = createRequestBudget({ rps: 10, now: () => Date.now() });
    budget.holdUntil(Date.now() + 3_000);
    let granted = false;
    const p = budget.acquire('high').then(() => (granted = true));
    await vi.advanceTimersByTimeAsync(2_900);
    expect(granted).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    await p;
    expect(granted).toBe(true);
  });

  it('drops an aborted waiter', async () => {
    const budget = createRequestBudget({ rps: 1, now: () => Date.now() });
    await budget.acquire('low');
    const controller = new AbortController();
    const waiting = budget.acquire('low', controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(budget.waiting).toBe(0);
  });
});
