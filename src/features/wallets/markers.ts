import type { WalletRecord } from '../../accounts/types.js';
import { sameButFetchTime } from '../../accounts/wallet-mapping.js';
import { fnv1a, FNV_OFFSET } from '../../cluster/rendezvous.js';
import type { Marker } from '../../cluster/view.js';
import { perObject } from '../../domain/per-object.js';

/**
 * "Fetched at t, unchanged": what a replica shares of the wallets it polled and found as
 * it last shared them, instead of the records (cluster/share-out.ts). A marker covers a
 * fixed slice of the publisher's share, in the order every replica computes it
 * (ClusterView.ownedBy), so its key (the slice's offset) stays the same from cycle to
 * cycle and the marker hash holds one per slice. It says, run by run, when the slice's
 * wallets were fetched; a reader that holds a wallet fetched earlier takes the marker's time
 * for it. A digest of the slice's addresses tells a reader whose member list differs from
 * the publisher's: it leaves the marker, and the next one after the lists agree applies.
 */

/** Wallets per marker. */
export const WALLETS_PER_MARKER = 1000;

/** One marker: the slice's offset and length in the publisher's share, the digest of its addresses, and runs of [wallets, fetched at (wall ms; 0: never)]. */
interface WalletMarker {
  readonly o: number;
  readonly c: number;
  readonly d: number;
  readonly r: readonly (readonly [number, number])[];
}

/**
 * The digests worked out for a share, by slice: a share is the same array while the member
 * list and the watchlist stay, so each slice is hashed once, not every cycle by the
 * publisher and by every reader (a million addresses a cycle at a million wallets).
 */
const knownDigests = perObject((_share: readonly { readonly raw: string }[]) => new Map<number, number>());

/** FNV-1a over the slice's addresses, one after the other. */
function sliceDigest(share: readonly { readonly raw: string }[], offset: number, count: number): number {
  const known = knownDigests(share);
  const key = offset * (share.length + 1) + count;
  let h = known.get(key);
  if (h !== undefined) return h;
  h = FNV_OFFSET;
  for (let i = offset; i < offset + count; i += 1) h = fnv1a((share[i] as { raw: string }).raw, h);
  known.set(key, h);
  return h;
}

/** The offsets of the markers of a share of `length` wallets. */
export function markerOffsets(length: number): number[] {
  const offsets: number[] = [];
  for (let o = 0; o < length; o += WALLETS_PER_MARKER) offsets.push(o);
  return offsets;
}

/** The marker of the slice at offset `o` of a share as this replica holds it: its wallets' fetch times as runs. */
export function walletMarker(share: readonly { readonly raw: string }[], held: ReadonlyMap<string, WalletRecord>, wallOffset: number, o: number): Marker {
  const c = Math.min(WALLETS_PER_MARKER, share.length - o);
  const runs: [number, number][] = [];
  for (let i = o; i < o + c; i += 1) {
    const record = held.get((share[i] as { raw: string }).raw);
    const at = record === undefined ? 0 : Math.round(record.fetchedAt + wallOffset);
    const last = runs[runs.length - 1];
    if (last !== undefined && last[1] === at) last[0] += 1;
    else runs.push([1, at]);
  }
  const marker: WalletMarker = { o, c, d: sliceDigest(share, o, c), r: runs };
  return { key: String(o), line: JSON.stringify(marker) };
}

const isMarker = (value: unknown): value is WalletMarker => {
  const m = value as WalletMarker;
  return (
    typeof m === 'object' &&
    m !== null &&
    Number.isSafeInteger(m.o) &&
    Number.isSafeInteger(m.c) &&
    Number.isSafeInteger(m.d) &&
    Array.isArray(m.r) &&
    m.r.every((run) => Array.isArray(run) && Number.isSafeInteger(run[0]) && Number.isFinite(run[1]))
  );
};

/**
 * Applies markers of a member whose share is `share` (as this replica computes it): each
 * wallet held with an earlier fetch time is handed to `refresh` with the marker's. Returns how
 * many markers applied, and how many were left (unreadable, or a slice this replica sees
 * differently).
 */
export function applyWalletMarkers(
  lines: readonly string[],
  share: readonly { readonly raw: string }[],
  lookup: (raw: string) => WalletRecord | undefined,
  toProcess: (wall: number) => number,
  refresh: (record: WalletRecord, fetchedAt: number) => void,
): { applied: number; left: number } {
  let applied = 0;
  let left = 0;
  for (const line of lines) {
    let marker: unknown;
    try {
      marker = JSON.parse(line);
    } catch {
      marker = null;
    }
    if (!isMarker(marker) || marker.o + marker.c > share.length || sliceDigest(share, marker.o, marker.c) !== marker.d) {
      left += 1;
      continue;
    }
    let i = marker.o;
    for (const [count, wall] of marker.r) {
      const fetchedAt = wall === 0 ? -Infinity : toProcess(wall);
      for (const end = Math.min(i + count, marker.o + marker.c); i < end; i += 1) {
        const record = lookup((share[i] as { raw: string }).raw);
        if (record !== undefined && record.fetchedAt < fetchedAt) refresh(record, fetchedAt);
      }
    }
    applied += 1;
  }
  return { applied, left };
}

/** Whether a replica that shared `shared` needs to share `record` again: anything but its fetch time differs (states are kept by identity while equal). */
export function changedSince(shared: WalletRecord | undefined, record: WalletRecord): boolean {
  return shared === undefined || !sameButFetchTime(shared, record);
}
