import { executionAsyncResource } from 'node:async_hooks';

/**
 * Works around a V8 quirk that made some tonwatch processes serve every endpoint about a
 * fifth slower than others of the same build, for their whole life.
 *
 * `process.nextTick` builds each tick object as a literal with computed keys
 * (`{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, callback, args }`), one map
 * (hidden class) transition per property, and V8 holds those transitions weakly. A full
 * collection at a moment when no tick object is alive drops them; the next tick objects
 * are built through new maps, and nextTick's inline caches, having seen two maps at one
 * site, turn megamorphic for good. Optimised with that feedback, nextTick defines each
 * property through the V8 runtime (about 0.25 µs a call, several calls a request). A
 * start-up runs full collections (loading the persisted snapshot, then the one after it),
 * so whether a process was fast depended on which came first, those or nextTick's
 * optimisation: the v2 endpoint served 32,000 or 46,000 requests a second on the same
 * machine, and a bare node:http server never hit it.
 *
 * One tick object kept alive keeps its maps, and every map before them in the chain,
 * alive: the transitions then survive every collection and the caches stay
 * monomorphic. Call this first thing, before anything can run a full collection.
 * `test/tick-object.test.ts` checks the caches' state in a fresh process, with and
 * without it.
 */
export interface KeptTickObject {
  /** The tick object, from the tick after the call on. */
  readonly object: object | undefined;
}

export function keepTickObject(): KeptTickObject {
  const kept: { object: object | undefined } = { object: undefined };
  // Inside a nextTick callback, the resource being executed is the tick object itself.
  process.nextTick(() => {
    kept.object = executionAsyncResource();
  });
  return kept;
}
