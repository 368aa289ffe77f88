import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClusterBudget, type SharedBucket } from '../../src/cluster/budget.js';
import { TAKE_TOKENS } from '../../src/cluster/scripts.js';
import { burstOf, type RequestBudget, type RequestPriority } from '../../src/upstream/budget.js';
import { redisServerPath, startRedis, type RunningRedis } from '../helpers/redis.js';

const bin = redisServerPath();

/** The most grants within any one second. */
function maxPerSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let head = 0;
  for (let i = 0; i < sorted.length; i += 1) {
    while ((sorted[head] as number) <= (sorted[i] as number) - 1000) head += 1;
    best = Math.max(best, i - head + 1);
  }
  return best;
}

describe.skipIf(bin === null)('the budget shared through Redis', () => {
  let redis: RunningRedis;
  let client: Redis;
  beforeAll(async () => {
    redis = await startRedis(bin as string);
    client = redis.client();
    client.defineCommand('take', { numberOfKeys: 1, lua: TAKE_TOKENS });
  });
  afterAll(() => redis?.stop());

  const bucketOn = (key: string, rps: number): SharedBucket => ({
    available: () => client.status === 'ready',
    take: async (want, reserve, holdMs) => {
      const [granted, waitMs] = await (client as unknown as { take(...args: unknown[]): Promise<[number, number]> }).take(
        key,
        rps,
        burstOf(rps),
        want,
        reserve,
        holdMs,
      );
      return { granted, waitMs };
    },
  });

  /** Runs `count` acquisitions of `priority` on `budget` back to back (`parallel` at a time); returns when each was granted. */
  async function drain(budget: RequestBudget, priority: RequestPriority, count: number, parallel = 8): Promise<number[]> {
    const times: number[] = [];
    let left = count;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (left > 0) {
          left -= 1;
          await budget.acquire(priority);
          times.push(Date.now());
        }
      }),
    );
    return times;
  }

  it('three replicas on one key never get more in any second than one process would: rps plus one burst', async () => {
    const rps = 20;
    const budgets = [0, 1, 2].map(() => createClusterBudget({ rps, now: Date.now, bucket: bucketOn('t:bucket:a', rps), members: () => 3 }));
    const started = Date.now();
    const times = (await Promise.all(budgets.map((b) => drain(b, 'low', 30)))).flat();
    const seconds = (Date.now() - started) / 1000;
    expect(times).toHaveLength(90);
    expect(maxPerSecond(times)).toBeLessThanOrEqual(rps + burstOf(rps));
    // 90 tokens at 20 a second, the first burst of 10 free: at least 4 s.
    expect(seconds).toBeGreaterThan(3.5);
  }, 20_000);

  it('lets the queue-size poll of one replica through while another replica’s wallet batches wait for tokens', async () => {
    const rps = 10;
    const polls = createClusterBudget({ rps, now: Date.now, bucket: bucketOn('t:bucket:b', rps), members: () => 2 });
    const leader = createClusterBudget({ rps, now: Date.now, bucket: bucketOn('t:bucket:b', rps), members: () => 2 });
    const flood = drain(polls, 'low', 40, 16);
    await new Promise((r) => setTimeout(r, 1500));
    const asked = Date.now();
    await leader.acquire('high');
    // One token is always left for a high request: it waits for no wallet batch.
    expect(Date.now() - asked).toBeLessThan(300);
    await flood;
  }, 20_000);

  it('falls back to its last known share of the budget while Redis cannot be asked', async () => {
    const rps = 30;
    const down: SharedBucket = { available: () => false, take: () => Promise.reject(new Error('down')) };
    const fallbacks: boolean[] = [];
    const budget = createClusterBudget({ rps, now: Date.now, bucket: down, members: () => 3, onFallback: (f) => fallbacks.push(f) });
    const started = Date.now();
    await drain(budget, 'low', 21, 4);
    const seconds = (Date.now() - started) / 1000;
    // 10 a second (30 over 3 members), a burst of 5: 21 tokens take about 1.6 s, not 0.7.
    expect(seconds).toBeGreaterThan(1.3);
    expect(fallbacks).toEqual([true]);
  }, 20_000);

  it('holds every replica when one is told Retry-After', async () => {
    const rps = 20;
    const a = createClusterBudget({ rps, now: Date.now, bucket: bucketOn('t:bucket:c', rps), members: () => 2 });
    const b = createClusterBudget({ rps, now: Date.now, bucket: bucketOn('t:bucket:c', rps), members: () => 2 });
    await a.acquire('low');
    const asked = Date.now();
    a.holdUntil(asked + 1000);
    // a's next request carries the hold to the shared bucket.
    const next = a.acquire('low');
    await new Promise((r) => setTimeout(r, 50));
    await b.acquire('low');
    expect(Date.now() - asked).toBeGreaterThan(900);
    await next;
  }, 20_000);
});
