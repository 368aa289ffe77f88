import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Milliseconds of work between two turns of the event loop (the clock is read every CLOCK_EVERY items). */
const SLICE_MS = 10;
const CLOCK_EVERY = 256;

/**
 * Calls `each` for every item, letting the event loop turn every SLICE_MS: served requests
 * and heartbeats go in between, where one pass over a cluster replica's share of a million
 * wallets would block it for seconds on a busy core. What `each` touches may change between
 * slices; a Map or Set iterated here sees entries added meanwhile and skips those deleted.
 * `clockEvery`: items between two reads of the clock (1 for items that are each much work).
 */
export async function forEachInSlices<T>(items: Iterable<T>, each: (item: T) => void, clockEvery = CLOCK_EVERY): Promise<void> {
  let sliceEnd = performance.now() + SLICE_MS;
  let count = 0;
  for (const item of items) {
    each(item);
    count += 1;
    if (count % clockEvery === 0 && performance.now() >= sliceEnd) {
      await nextTurn();
      sliceEnd = performance.now() + SLICE_MS;
    }
  }
}
