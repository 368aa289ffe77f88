import { describe, expect, it } from 'vitest';
import { forEachInSlices } from '../../src/domain/slices.js';

const busy = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('forEachInSlices', () => {
  it('visits every item in order, letting the event loop turn between slices', async () => {
    const seen: number[] = [];
    const turns: number[] = [];
    const ticker = setInterval(() => turns.push(seen.length), 0);
    try {
      // 200 items of 1 ms each, the clock read at every item: about twenty slices of 10 ms.
      await forEachInSlices(
        Array.from({ length: 200 }, (_, i) => i),
        (i) => {
          busy(1);
          seen.push(i);
        },
        1,
      );
    } finally {
      clearInterval(ticker);
    }
    expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => i));
    // Timers ran while the loop was half-way, not only before or after it.
    expect(turns.some((at) => at > 0 && at < 200)).toBe(true);
  });

  it('sees entries added to a map meanwhile', async () => {
    const map = new Map<number, number>(Array.from({ length: 5_000 }, (_, i) => [i, i]));
    let sum = 0;
    const adding = setTimeout(() => map.set(-1, 1_000_000), 0);
    await forEachInSlices(map, ([, v]) => {
      busy(0.01);
      sum += v;
    });
    clearTimeout(adding);
    expect(sum).toBe((4_999 * 5_000) / 2 + 1_000_000);
  });
});
