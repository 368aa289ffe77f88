import type { WalletRecord } from '../../accounts/types.js';

/** Entries cached at most; the oldest go first past it. */
export const MAX_CACHED_ADDRESSES = 200_000;
/** Expired entries are swept at most this often, ms. */
const SWEEP_EVERY_MS = 1000;

/**
 * Records fetched for clients, oldest first, served while younger than the ttl; swept of
 * stale ones every SWEEP_EVERY_MS, and of the oldest past MAX_CACHED_ADDRESSES.
 */
export function createRecordCache(ttlMs: () => number) {
  const records = new Map<string, WalletRecord>();
  let sweptAt = 0;
  const fresh = (record: WalletRecord, at: number): boolean => at < record.fetchedAt + ttlMs();
  return {
    get(raw: string, at: number): WalletRecord | undefined {
      const record = records.get(raw);
      return record !== undefined && fresh(record, at) ? record : undefined;
    },
    set(raw: string, record: WalletRecord): void {
      records.delete(raw); // re-inserted last: the map's order is age order
      records.set(raw, record);
    },
    sweep(at: number): void {
      if (at - sweptAt < SWEEP_EVERY_MS && records.size <= MAX_CACHED_ADDRESSES) return;
      sweptAt = at;
      for (const [raw, record] of records) if (!fresh(record, at)) records.delete(raw);
      for (const raw of records.keys()) {
        if (records.size <= MAX_CACHED_ADDRESSES) break;
        records.delete(raw);
      }
    },
    get size(): number {
      return records.size;
    },
    clear: (): void => records.clear(),
  };
}
