import { describe, expect, it } from 'vitest';
import { createMembership } from '../../src/cluster/membership.js';

const watchlist = Array.from({ length: 3000 }, (_, i) => ({ raw: `0:${i.toString(16).padStart(64, '0')}` }));

function setUp(self = 'a') {
  let t = 0;
  const membership = createMembership({ self, heartbeatMs: 1000, now: () => t });
  return { membership, advance: (ms: number) => (t += ms) };
}

describe('a replica’s membership', () => {
  it('owns nothing before its first heartbeat, nor for one heartbeat period after it', () => {
    const { membership, advance } = setUp();
    expect(membership.owned(watchlist)).toHaveLength(0);
    membership.heard(['a', 'b'], 'b');
    expect(membership.owned(watchlist)).toHaveLength(0);
    advance(999);
    expect(membership.owned(watchlist)).toHaveLength(0);
    advance(1);
    const owned = membership.owned(watchlist);
    expect(owned.length).toBeGreaterThan(1200);
    expect(owned.length).toBeLessThan(1800);
    // The same array while nothing changes.
    expect(membership.owned(watchlist)).toBe(owned);
  });

  it('takes over a dead member’s share when Redis stops listing it, and keeps its last share without Redis', () => {
    const { membership, advance } = setUp();
    membership.heard(['a', 'b'], 'b');
    advance(1000);
    const half = membership.owned(watchlist).length;
    expect(membership.heard(['a'], 'b')).toBe(true);
    expect(membership.owned(watchlist)).toHaveLength(watchlist.length);
    expect(membership.leads()).toBe(false);
    membership.heard(['a'], 'a');
    expect(membership.leads()).toBe(true);
    expect(half).toBeLessThan(watchlist.length);
    // No heartbeat answered for a long time (Redis away): the last share and the lease stay.
    advance(60_000);
    expect(membership.owned(watchlist)).toHaveLength(watchlist.length);
    expect(membership.leads()).toBe(true);
  });

  it('after a reconnect, lets the member list only grow for one heartbeat period, and only the former leader bids', () => {
    const a = setUp('a');
    a.membership.heard(['a', 'b', 'c'], 'a');
    const b = setUp('b');
    b.membership.heard(['a', 'b', 'c'], 'a');
    b.advance(1000);
    const share = b.membership.owned(watchlist);
    // Redis restarted empty: b re-registers first.
    b.membership.reconnected();
    a.membership.reconnected();
    expect(b.membership.bids()).toBe(false);
    expect(a.membership.bids()).toBe(true);
    b.membership.heard(['b'], null);
    expect(b.membership.owned(watchlist)).toBe(share);
    b.advance(1000);
    expect(b.membership.bids()).toBe(true);
    b.membership.heard(['a', 'b'], 'a');
    expect(b.membership.members()).toEqual(['a', 'b']);
  });
});

describe('a member list seen again', () => {
  it('gives the very same share array, so what was rendered for it is kept', () => {
    let t = 0;
    const membership = createMembership({ self: 'a', heartbeatMs: 1000, now: () => t });
    membership.heard(['a', 'b', 'c'], 'a');
    t += 1000;
    const three = membership.owned(watchlist);
    membership.heard(['a', 'c'], 'a');
    const two = membership.owned(watchlist);
    expect(two).not.toBe(three);
    membership.heard(['a', 'b', 'c'], 'a');
    expect(membership.owned(watchlist)).toBe(three);
    // Another watchlist: computed for it.
    const other = watchlist.slice(1);
    expect(membership.owned(other)).toEqual(three.filter((w) => w !== watchlist[0]));
  });
});
