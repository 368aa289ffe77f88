import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, startedUpFlags } from '../src/app/heap-flags.js';

describe('the V8 flags set once started up', () => {
  it('limit the heap growth, unless node was started with a limit of its own, which stands', () => {
    expect(startedUpFlags(['--max-semi-space-size=8'])).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, '--expose-gc']);
    for (const own of ['--heap-growing-percent=50', '--heap_growing_percent=50', '--heap-growing-percent']) {
      expect(startedUpFlags(['--max-semi-space-size=8', own])).toEqual(['--expose-gc']);
    }
    expect(startedUpFlags(['--heap-growing-percentage=50'])).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, '--expose-gc']);
  });
});
