/**
 * A value worked out once per object (a snapshot, a config, a buffer) and kept for as long
 * as that object lives: the immutable snapshot and config are replaced whole, so their
 * identity is the cache key, and handlers read as pure functions of (snapshot, request).
 */
export interface PerObject<K extends object, V> {
  (key: K): V;
  /** Forgets the value for `key` (one that failed, to be worked out again). */
  forget(key: K): void;
  /** Keeps `value` for `key` (one worked out elsewhere). */
  keep(key: K, value: V): void;
}

export function perObject<K extends object, V>(compute: (key: K) => V): PerObject<K, V> {
  const known = new WeakMap<K, V>();
  const cached = ((key: K): V => {
    if (known.has(key)) return known.get(key) as V;
    const value = compute(key);
    known.set(key, value);
    return value;
  }) as PerObject<K, V>;
  cached.forget = (key) => known.delete(key);
  cached.keep = (key, value) => known.set(key, value);
  return cached;
}
