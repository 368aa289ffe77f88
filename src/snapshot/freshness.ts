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

/** Why the data of `query` is not ready to be served (a /readyz reason), or null when it is. */
export function notReadyReason(query: string, fetchedAt: number | undefined, now: number, maxAgeSeconds: number, loading = false): string | null {
  if (fetchedAt === undefined) return loading ? `${query}: loading the persisted snapshot` : `${query}: no snapshot yet`;
  if (isFresh(fetchedAt, now, maxAgeSeconds)) return null;
  return `${query}: snapshot is ${Math.floor(ageSeconds(fetchedAt, now))} s old (maxAgeSeconds ${maxAgeSeconds})`;
}
