import { describe, expect, it } from 'vitest';
import type { WalletRecord } from '../../src/accounts/types.js';
import { gainedSince, notFetchedSince, stillOwnedSince, walletsToPoll, type LastTick } from '../../src/features/wallets/to-poll.js';
import type { WalletsSnapshot } from '../../src/features/wallets/types.js';
import { watched } from '../helpers/wallets.js';

const record = (raw: string, fetchedAt: number): WalletRecord => ({ raw, state: null, addressBook: null, metadata: undefined, fetchedAt, upstream: 'sim' });

describe('the wallets a run polls', () => {
  const share = [1, 2, 3, 4, 5, 6].map((n) => watched(`0:${String(n).repeat(64)}`));
  const [a, b, c, d, e, f] = share.map((w) => w.raw) as [string, string, string, string, string, string];

  it('is the whole share at a tick, and after it, of the wallets taken over, those not fetched since that tick began', () => {
    const ticks: LastTick = { startedAt: null };
    // Asked before any tick: nothing to compare with, the whole share.
    expect(walletsToPoll(share.slice(0, 3), 'asked', ticks, () => null, 500)).toHaveLength(3);
    expect(ticks.startedAt).toBe(500);
    expect(walletsToPoll(share.slice(0, 3), 'tick', ticks, () => null, 1_000)).toHaveLength(3);
    expect(ticks.startedAt).toBe(1_000);
    // The share grew by d, e, f. a–c were polled by this tick's run; the member that left
    // polled d after the tick began, e before it; f was never fetched.
    const held: WalletsSnapshot = {
      fetchedAt: 1_400,
      wallets: new Map([record(a, 1_200), record(b, 1_200), record(c, 1_200), record(d, 1_000), record(e, 999)].map((r) => [r.raw, r])),
    };
    expect(walletsToPoll(share, 'asked', ticks, () => held, 1_500).map((w) => w.raw)).toEqual([e, f]);
    expect(ticks.startedAt).toBe(1_000);
    // The next tick polls all of it again.
    expect(walletsToPoll(share, 'tick', ticks, () => held, 2_000)).toBe(share);
    expect(ticks.startedAt).toBe(2_000);
  });

  it("is, once members joined during a run, only what is still this replica's share", () => {
    let owned: readonly (typeof share)[number][] = share;
    const still = stillOwnedSince(share, () => owned);
    expect(share.every((w) => still(w.raw))).toBe(true);
    owned = [share[0], share[3]] as typeof share;
    expect(share.filter((w) => still(w.raw)).map((w) => w.raw)).toEqual([a, d]);
    owned = [share[1]] as typeof share;
    expect(share.filter((w) => still(w.raw)).map((w) => w.raw)).toEqual([b]);
    // The member list it began with came back: the same array, the whole share again.
    owned = share;
    expect(share.filter((w) => still(w.raw))).toHaveLength(6);
    expect([c, e, f].every(still)).toBe(true);
  });

  it('gives, as the share grows during a run, each wallet that joined once, less those fetched since the tick began', () => {
    const began = share.slice(0, 2);
    let owned: readonly (typeof share)[number][] = began;
    // The member that left fetched d after the tick began at 1,000, e before it.
    const held: WalletsSnapshot = { fetchedAt: 1_200, wallets: new Map([record(d, 1_100), record(e, 900)].map((r) => [r.raw, r])) };
    const gained = gainedSince(
      share,
      began,
      () => owned,
      notFetchedSince(1_000, () => held),
    );
    expect(gained()).toEqual([]);
    owned = share.slice(0, 4);
    expect(gained().map((w) => w.raw)).toEqual([c]);
    expect(gained()).toEqual([]);
    // One member joined (it owns a now), another left (e and f are this replica's).
    owned = [share[1], share[2], share[3], share[4], share[5]] as typeof share;
    expect(gained().map((w) => w.raw)).toEqual([e, f]);
    // Wallets handed out before are not handed out again; the list it began with brings nothing new.
    owned = share;
    expect(gained()).toEqual([]);
    owned = began;
    expect(gained()).toEqual([]);
  });
});
