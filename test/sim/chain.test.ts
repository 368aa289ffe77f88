import { describe, expect, it } from 'vitest';
import { createSimChain, EXT_MSG_QUEUE_SIZE_LIMIT, MERGE_QUEUE_SIZE, SPLIT_QUEUE_SIZE } from '../../src/sim/chain.js';
import { createRandom } from '../../src/sim/random.js';
import type { ScenarioName } from '../../src/sim/scenarios.js';

// A fixed clock: block times come from it, and two runs may straddle a second of the wall clock.
const chainOf = (scenario: ScenarioName, seed = 1) => createSimChain({ random: createRandom(seed), seed, scenario, now: () => 1_700_000_000_000 });
const run = (scenario: ScenarioName, steps: number, seed = 1) => {
  const chain = chainOf(scenario, seed);
  const history = [];
  for (let i = 0; i < steps; i += 1) {
    chain.step();
    history.push(chain.queues());
  }
  return history;
};

describe('simulated chain', () => {
  it('is deterministic under a seed', () => {
    expect(run('calm', 300, 5)).toEqual(run('calm', 300, 5));
    expect(run('calm', 300, 5)).not.toEqual(run('calm', 300, 6));
  });

  it('lists the masterchain first and advances seqnos by one per block', () => {
    const history = run('calm', 3);
    const [a, b] = [history[0]!, history[1]!];
    expect(a[0]).toMatchObject({ workchain: -1, shard: '-9223372036854775808' });
    expect(b[0]!.seqno).toBe(a[0]!.seqno + 1);
    expect(a.slice(1).every((q) => q.workchain === 0)).toBe(true);
    expect(a[0]!.rootHash).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it('splits a shard after its queue passes 4096 and merges back under 2047', () => {
    let sawSplit = false;
    let sawMerge = false;
    const history = run('calm', 3000, 3);
    for (let i = 1; i < history.length; i += 1) {
      const before = history[i - 1]!.slice(1);
      const after = history[i]!.slice(1);
      const born = after.filter((q) => !before.some((b) => b.shard === q.shard));
      if (after.length > before.length) {
        sawSplit = true;
        // The two children share the parent's queue, which had passed the split threshold.
        expect(born).toHaveLength(2);
        expect(born[0]!.size + born[1]!.size).toBeGreaterThan(SPLIT_QUEUE_SIZE);
      }
      if (after.length < before.length) {
        sawMerge = true;
        expect(born).toHaveLength(1);
        expect(born[0]!.size).toBeLessThan(MERGE_QUEUE_SIZE);
      }
      expect(after.length).toBeGreaterThanOrEqual(2);
      expect(after.length).toBeLessThanOrEqual(4);
    }
    expect(sawSplit).toBe(true);
    expect(sawMerge).toBe(true);
  });

  it('surge pushes one shard past the limit and keeps it there', () => {
    const history = run('surge', 120);
    const last = history[history.length - 1]!;
    expect(last.slice(1).some((q) => q.size > EXT_MSG_QUEUE_SIZE_LIMIT)).toBe(true);
    const earlyMax = Math.max(...history[5]!.map((q) => q.size));
    expect(earlyMax).toBeLessThan(EXT_MSG_QUEUE_SIZE_LIMIT);
  });

  it("stall freezes one shard's seqno while the others advance", () => {
    const history = run('stall', 10);
    const first = history[0]!;
    const last = history[9]!;
    const frozen = last.filter((q) => first.some((f) => f.shard === q.shard && f.seqno === q.seqno));
    expect(frozen).toHaveLength(1);
    expect(last[0]!.seqno).toBe(first[0]!.seqno + 9);
  });
});
