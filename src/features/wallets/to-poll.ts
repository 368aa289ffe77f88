import type { WatchedWallet } from '../../domain/config.js';
import type { RunReason } from '../../schedule/scheduler.js';
import type { WalletsSnapshot } from './types.js';

/** When the last run of the schedule (not one asked between ticks) began, on the process clock. */
export interface LastTick {
  startedAt: number | null;
}

/**
 * What a run polls of this replica's share: a tick's run, all of it; a run asked between
 * ticks (the replica has just taken over wallets), the wallets not fetched since the last
 * tick's run began, by this replica or the member that owned them. So a member's share
 * left behind is polled within the time its wallets take, not a whole share's.
 */
export function walletsToPoll(
  owned: readonly WatchedWallet[],
  reason: RunReason,
  ticks: LastTick,
  held: () => WalletsSnapshot | null,
  now: number,
): readonly WatchedWallet[] {
  const since = ticks.startedAt;
  if (reason === 'tick' || since === null) {
    ticks.startedAt = now;
    return owned;
  }
  return owned.filter(notFetchedSince(since, held));
}

/** Whether a wallet's held record was fetched before `since` (or there is none): a run that takes it over polls it. */
export function notFetchedSince(since: number | null, held: () => WalletsSnapshot | null): (wallet: WatchedWallet) => boolean {
  return (wallet) => !((held()?.wallets.get(wallet.raw)?.fetchedAt ?? -Infinity) >= (since ?? Infinity));
}

/**
 * Whether a wallet of the share a run began with is still this replica's to poll, as its
 * batch is cut. A replica that began its cycle alone owned the whole watchlist; members that
 * joined since own most of it now, and poll it themselves. `owned` gives the same array while
 * nothing changed, and again when a member list comes back.
 */
export function stillOwnedSince(began: readonly WatchedWallet[], owned: () => readonly WatchedWallet[]): (raw: string) => boolean {
  let seen = began;
  let raws: ReadonlySet<string> = new Set();
  return (raw) => {
    const share = owned();
    if (share === began) return true;
    if (share !== seen) {
      seen = share;
      raws = new Set(share.map((w) => w.raw));
    }
    return raws.has(raw);
  };
}

/**
 * The wallets that joined this replica's share since a run began with `began`, each handed
 * out once, as a batch of the run is cut: a member that left mid-cycle leaves wallets the
 * survivors poll at once, ahead of the rest of their own share (the oldest first).
 * `due` leaves out those fetched since the tick's run began (by the member that left).
 * `began` and every share are the watchlist filtered, in its order: one walk of the
 * watchlist compares them, with no set of a million addresses made.
 */
export function gainedSince(
  watchlist: readonly WatchedWallet[],
  began: readonly WatchedWallet[],
  owned: () => readonly WatchedWallet[],
  due: (wallet: WatchedWallet) => boolean,
): () => readonly WatchedWallet[] {
  let seen = began;
  const handedOut = new Set<string>();
  return () => {
    const share = owned();
    if (share === seen) return [];
    seen = share;
    const gained: WatchedWallet[] = [];
    let b = 0;
    let s = 0;
    for (const wallet of watchlist) {
      const inBegan = began[b] === wallet;
      if (inBegan) b += 1;
      if (share[s] !== wallet) continue;
      s += 1;
      if (inBegan || handedOut.has(wallet.raw)) continue;
      handedOut.add(wallet.raw);
      if (due(wallet)) gained.push(wallet);
    }
    return gained;
  };
}
