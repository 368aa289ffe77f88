import { describe, expect, it } from 'vitest';
import type { WalletRecord } from '../../src/accounts/types.js';
import { applyWalletMarkers, changedSince, markerOffsets, walletMarker, WALLETS_PER_MARKER } from '../../src/features/wallets/markers.js';

const raw = (i: number) => `0:${i.toString(16).toUpperCase().padStart(64, '0')}`;
const record = (i: number, fetchedAt: number): WalletRecord => ({
  raw: raw(i),
  state: null,
  addressBook: null,
  metadata: undefined,
  fetchedAt,
  upstream: 'sim',
});

describe('wallet markers', () => {
  const share = Array.from({ length: 2_500 }, (_, i) => ({ raw: raw(i) }));
  // Two batches fetched at different times, one wallet never fetched.
  const held = new Map(share.map(({ raw: key }, i) => [key, record(i, i < 1_200 ? 5_000 : 6_000)]));
  held.delete(raw(7));
  const markers = markerOffsets(share.length).map((o) => walletMarker(share, held, 1_000, o));

  it('covers the share in fixed slices, keyed by offset, with runs of fetch times in wall time', () => {
    expect(markers.map((m) => m.key)).toEqual(['0', String(WALLETS_PER_MARKER), String(2 * WALLETS_PER_MARKER)]);
    expect(JSON.parse(markers[1]?.line ?? '').r).toEqual([
      [200, 6_000],
      [800, 7_000],
    ]);
  });

  it('advances only wallets held with an earlier fetch time, and leaves a slice seen differently', () => {
    const reader = new Map(share.map(({ raw: key }, i) => [key, record(i, i === 3 ? 9_000 : 1)]));
    const refreshed = new Map<string, number>();
    const result = applyWalletMarkers(
      markers.map((m) => m.line),
      share,
      (key) => reader.get(key),
      (wall) => wall - 1_000,
      (r, at) => refreshed.set(r.raw, at),
    );
    expect(result).toEqual({ applied: 3, left: 0 });
    expect(refreshed.get(raw(0))).toBe(5_000);
    expect(refreshed.get(raw(2_000))).toBe(6_000);
    // Held fresher than the marker says, or never fetched by the publisher: untouched.
    expect(refreshed.has(raw(3))).toBe(false);
    expect(refreshed.has(raw(7))).toBe(false);
    // Another member list: the slice's addresses differ, so its digest does.
    const other = [...share.slice(1), { raw: raw(9_999) }];
    const left = applyWalletMarkers(
      [markers[0]?.line ?? '', 'not json'],
      other,
      (key) => reader.get(key),
      (w) => w,
      () => undefined,
    );
    expect(left).toEqual({ applied: 0, left: 2 });
  });

  it('calls a record changed when anything but its fetch time differs', () => {
    const a = record(1, 1);
    expect(changedSince(undefined, a)).toBe(true);
    expect(changedSince(a, { ...a, fetchedAt: 2 })).toBe(false);
    expect(changedSince(a, { ...a, upstream: 'other' })).toBe(true);
    expect(changedSince(a, { ...a, addressBook: { user_friendly: 'x', domain: null } })).toBe(true);
  });
});
