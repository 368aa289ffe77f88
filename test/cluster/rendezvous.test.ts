import { describe, expect, it } from 'vitest';
import { hash32, ownedShare, ownerIndex } from '../../src/cluster/rendezvous.js';

const wallets = Array.from({ length: 20_000 }, (_, i) => ({ raw: `0:${(i * 2654435761).toString(16).toUpperCase().padStart(64, '0')}` }));
const owners = (members: readonly string[]) => {
  const hashes = members.map(hash32);
  return new Map(wallets.map((w) => [w.raw, members[ownerIndex(hash32(w.raw), hashes)]]));
};

describe('rendezvous ownership', () => {
  it('gives every wallet to exactly one member, about 1/N each', () => {
    const members = ['a:1', 'b:1', 'c:1', 'd:1'];
    const shares = members.map((m) => ownedShare(wallets, members, m));
    expect(shares.reduce((sum, s) => sum + s.length, 0)).toBe(wallets.length);
    expect(new Set(shares.flat().map((w) => w.raw)).size).toBe(wallets.length);
    for (const share of shares) expect(Math.abs(share.length - wallets.length / 4)).toBeLessThan(wallets.length * 0.03);
  });

  it('moves only the leaving member’s wallets when one leaves, and about 1/N when one joins', () => {
    const before = owners(['a:1', 'b:1', 'c:1']);
    const left = owners(['a:1', 'c:1']);
    for (const [raw, owner] of before) if (owner !== 'b:1') expect(left.get(raw)).toBe(owner);
    const joined = owners(['a:1', 'b:1', 'c:1', 'd:1']);
    let moved = 0;
    for (const [raw, owner] of before) {
      if (joined.get(raw) !== owner) {
        moved += 1;
        expect(joined.get(raw)).toBe('d:1');
      }
    }
    expect(Math.abs(moved - wallets.length / 4)).toBeLessThan(wallets.length * 0.03);
  });

  it('is the same whatever order the members are listed in, and counts itself in', () => {
    expect(ownedShare(wallets, ['b', 'a', 'c'], 'a')).toEqual(ownedShare(wallets, ['c', 'a', 'b'], 'a'));
    expect(ownedShare(wallets, ['b'], 'a')).toEqual(ownedShare(wallets, ['a', 'b'], 'a'));
    expect(ownedShare(wallets, [], 'a')).toHaveLength(wallets.length);
  });
});
