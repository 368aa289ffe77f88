import { perObject } from '../domain/per-object.js';

/**
 * Rendezvous (highest random weight) hashing: each wallet belongs to the live member with
 * the highest score of (wallet, member). Every replica computes the same owner from the
 * same member list, with no coordination; when a member leaves, only its wallets move
 * (each to the member with its next highest score); when one joins, it takes about 1/N of
 * every other member's wallets and nothing else moves.
 */

/** FNV-1a's starting value. */
export const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a, 32 bits, over a string's UTF-16 code units, continuing from `h` (so several strings hash as one). */
export function fnv1a(text: string, h: number = FNV_OFFSET): number {
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** FNV-1a, 32 bits, of a string (raw addresses and member ids are ASCII). */
export const hash32 = (text: string): number => fnv1a(text);

/** MurmurHash3's finaliser: every input bit moves every output bit. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The score of a key (hash32 of the wallet) on a member (hash32 of its id). Ties go to the lower member hash. */
export function score(keyHash: number, memberHash: number): number {
  return mix(keyHash ^ mix(memberHash));
}

/** Index in `members` of the owner of `keyHash`; -1 when there are no members. */
export function ownerIndex(keyHash: number, memberHashes: readonly number[]): number {
  let best = -1;
  let bestScore = -1;
  for (let i = 0; i < memberHashes.length; i += 1) {
    const s = score(keyHash, memberHashes[i] as number);
    if (s > bestScore || (s === bestScore && (memberHashes[i] as number) < (memberHashes[best] as number))) {
      best = i;
      bestScore = s;
    }
  }
  return best;
}

/**
 * hash32 of each entry's raw address, worked out once per watchlist (a list is replaced
 * whole when it changes): a member list change then costs a few multiplications a wallet,
 * not hashing every address again for each member (seconds at a million on a busy core).
 */
const keyHashes = perObject((watchlist: readonly { readonly raw: string }[]): Uint32Array => Uint32Array.from(watchlist, (w) => hash32(w.raw)));

/** The entries of `watchlist` that `self` owns among `members` (self counted as one of them whatever the list says). */
export function ownedShare<T extends { readonly raw: string }>(watchlist: readonly T[], members: readonly string[], self: string): T[] {
  const all = members.includes(self) ? members : [...members, self];
  const hashes = all.map(hash32);
  const mine = all.indexOf(self);
  const keys = keyHashes(watchlist);
  return watchlist.filter((_, i) => ownerIndex(keys[i] as number, hashes) === mine);
}
