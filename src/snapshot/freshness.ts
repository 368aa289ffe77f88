/**
 * How old data is, and whether it may still be served and exported: data older than
 * snapshot.maxAgeSeconds is neither. Times are ms since epoch, whole milliseconds (the
 * clock is Date.now()).
 */

/** Age of data fetched at `fetchedAt`, in seconds; never negative. */
export function ageSeconds(fetchedAt: number, now: number): number {
  return Math.max(0, (now - fetchedAt) / 1000);
}

/** The first millisecond at which data fetched at `fetchedAt` is stale: it is fresh while its age is at most maxAgeSeconds. */
export function staleFrom(fetchedAt: number, maxAgeSeconds: number): number {
  return fetchedAt + maxAgeSeconds * 1000 + 1;
}

export function isFresh(fetchedAt: number, now: number, maxAgeSeconds: number): boolean {
  return now < staleFrom(fetchedAt, maxAgeSeconds);
}

/** Whether every watched wallet has a record that is still fresh at `until`. */
export function freshForAll(
  watchlist: readonly { readonly raw: string }[],
  records: ReadonlyMap<string, { readonly fetchedAt: number }> | undefined,
  until: number,
  maxAgeSeconds: number,
): boolean {
  if (records === undefined) return watchlist.length === 0;
  for (const { raw } of watchlist) {
    const record = records.get(raw);
    if (record === undefined || !isFresh(record.fetchedAt, until, maxAgeSeconds)) return false;
  }
  return true;
}
