import type { WalletRecord } from '../../accounts/types.js';
import type { WalletsSnapshot } from './types.js';

/**
 * The cycle's snapshot, in watchlist order: what this cycle found, else the last value (a
 * failed batch keeps its wallets' last values); wallets that left the watchlist are gone. Pure.
 */
export function assembleWalletsSnapshot(
  watchlist: readonly { readonly raw: string }[],
  found: ReadonlyMap<string, WalletRecord>,
  previous: ReadonlyMap<string, WalletRecord> | undefined,
  fetchedAt: number,
): WalletsSnapshot {
  // The common case: every wallet answered, batch after batch in watchlist order. Then
  // the map the cycle filled is the snapshot already.
  if (found.size === watchlist.length) {
    let index = 0;
    for (const raw of found.keys()) {
      if (raw !== watchlist[index]?.raw) break;
      index += 1;
    }
    if (index === watchlist.length) return { wallets: found, fetchedAt };
  }
  const wallets = new Map<string, WalletRecord>();
  for (const { raw } of watchlist) {
    const record = found.get(raw) ?? previous?.get(raw);
    if (record) wallets.set(raw, record);
  }
  return { wallets, fetchedAt };
}
