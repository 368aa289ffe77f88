import { ownedShare } from './rendezvous.js';

/**
 * What one replica knows of the cluster, from its heartbeats (scripts.ts HEARTBEAT): the
 * live members and who holds the leader lease. Pure state, fed by the runtime.
 *
 * - Ownership: rendezvous hashing over the live members (rendezvous.ts). A replica that
 *   has just joined owns nothing for one heartbeat period, by which time every other
 *   member has seen it and dropped what moves to it: a wallet is never exported by two.
 * - Without Redis the last member list stays: each replica keeps polling its last share.
 *   Before the first heartbeat it owns nothing (it does not know the others).
 * - After Redis comes back (restarted empty, or reached again), the members re-register
 *   one by one: for one heartbeat period the list only grows (the last known members
 *   stay), so nobody takes over a share whose owner is alive, and only the former leader
 *   bids for the lease.
 * - The lease: its holder leads. Cut off from Redis, it goes on leading (the others cannot
 *   reach Redis either, or they take the lease when it expires and it learns so when it
 *   reaches Redis again: in a partition, both poll the queue sizes until then).
 */
export interface Membership {
  /** A heartbeat's answer: the live members and the lease holder. Returns whether the member list changed. */
  heard(members: readonly string[], leader: string | null): boolean;
  /** The live members at the last heartbeat (empty before the first). */
  members(): readonly string[];
  /** Whether this replica holds the lease now. */
  leads(): boolean;
  /** The lease holder at the last heartbeat. */
  leader(): string | null;
  /** Redis was reached again: the member list only grows for one heartbeat period. */
  reconnected(): void;
  /** Whether this replica asks for the lease at its next heartbeat. */
  bids(): boolean;
  /** The entries of `watchlist` this replica owns: the same array while neither changes. */
  owned<T extends { readonly raw: string }>(watchlist: readonly T[]): readonly T[];
  /** The entries of `watchlist` another member owns among the live members as this replica knows them (cached while neither changes). */
  ownedBy<T extends { readonly raw: string }>(member: string, watchlist: readonly T[]): readonly T[];
}

/** Member lists whose share is kept. */
const KNOWN_SHARES = 4;

export function createMembership(options: { self: string; heartbeatMs: number; now: () => number }): Membership {
  const { self, now } = options;
  let members: readonly string[] = [];
  let leader: string | null = null;
  let frozenUntil = -Infinity;
  let joinedAt: number | null = null;
  let version = 0;
  let cache: { watchlist: readonly unknown[]; version: number; owned: readonly unknown[] } | null = null;
  const NOTHING: readonly never[] = [];
  /** The shares of the last few member lists, most recent last. */
  const shares = new Map<string, { watchlist: readonly unknown[]; owned: readonly unknown[] }>();
  /** Other members' shares, for the member list they were computed on. */
  const others = new Map<string, { watchlist: readonly unknown[]; version: number; owned: readonly unknown[] }>();

  const settled = (): boolean => joinedAt !== null && now() - joinedAt >= options.heartbeatMs;

  return {
    heard(next, holder) {
      const t = now();
      if (joinedAt === null) {
        joinedAt = t;
        version += 1;
      }
      leader = holder;
      const sorted = [...new Set(t < frozenUntil ? [...members, ...next] : next)].sort();
      const changed = sorted.length !== members.length || sorted.some((m, i) => m !== members[i]);
      if (changed) {
        members = sorted;
        version += 1;
      }
      return changed;
    },
    members: () => members,
    leads: () => leader === self,
    leader: () => leader,
    reconnected() {
      if (joinedAt !== null) frozenUntil = now() + options.heartbeatMs;
    },
    bids: () => leader === self || now() >= frozenUntil,
    owned<T extends { readonly raw: string }>(watchlist: readonly T[]): readonly T[] {
      if (!settled()) return NOTHING;
      // The grace period ends without a heartbeat: count it as a change once.
      const v = version + 1;
      if (cache !== null && cache.watchlist === watchlist && cache.version === v) return cache.owned as readonly T[];
      // A member list seen before (one that flapped back) gives the very same array: what
      // was rendered for it is kept (the metrics' blocks compare wallets by identity).
      const key = members.join('\n');
      const known = shares.get(key);
      const owned = known !== undefined && known.watchlist === watchlist ? (known.owned as readonly T[]) : ownedShare(watchlist, members, self);
      shares.delete(key);
      shares.set(key, { watchlist, owned });
      if (shares.size > KNOWN_SHARES) shares.delete(shares.keys().next().value as string);
      cache = { watchlist, version: v, owned };
      return owned;
    },
    ownedBy<T extends { readonly raw: string }>(member: string, watchlist: readonly T[]): readonly T[] {
      if (member === self) return this.owned(watchlist);
      const known = others.get(member);
      if (known !== undefined && known.watchlist === watchlist && known.version === version) return known.owned as readonly T[];
      const owned = ownedShare(watchlist, members, member);
      // Members that left are forgotten with the list they were computed on.
      for (const [id, share] of others) if (share.version !== version) others.delete(id);
      others.set(member, { watchlist, version, owned });
      return owned;
    },
  };
}
