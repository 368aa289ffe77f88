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

  it('lets wallet batches and read-through batches take turns below high priority, neither starving the other', async () => {
    const budget = createRequestBudget({ rps: 1, now: () => Date.now() });
    const order: string[] = [];
    await budget.acquire('low');
    const waiting = [
      ...[1, 2, 3, 4].map((i) => budget.acquire('low').then(() => order.push(`low${i}`))),
      ...[1, 2].map((i) => budget.acquire('read').then(() => order.push(`read${i}`))),
    ];
    const high = budget.acquire('high').then(() => order.push('high'));
    await vi.advanceTimersByTimeAsync(8_000);
    await Promise.all([...waiting, high]);
    expect(order).toEqual(['high', 'read1', 'low1', 'read2', 'low2', 'low3', 'low4']);
  });

  it("serves jetton batches after wallet batches on the polls' turns, polls still taking turns with read-through", async () => {
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
    // Polls and read-through alternate; on the polls' turns the wallet batches go before the jetton batches that came first.
    expect(order).toEqual(['high', 'read1', 'low1', 'read2', 'low2', 'read3', 'jetton1', 'jetton2']);
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
