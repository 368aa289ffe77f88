import type { WalletRecord } from '../../accounts/types.js';
import type { WalletsSnapshot } from './types.js';

/** A snapshot made here: its map is new, or the one `into` named, and its holder may put records into it. */
export interface OwnedWallets extends WalletsSnapshot {
  readonly wallets: Map<string, WalletRecord>;
}

/** Whether `incoming` is to replace `held`: fetched later, and not an older state of the account (its last transaction lt). */
export function isNewer(incoming: WalletRecord, held: WalletRecord | undefined): boolean {
  if (held === undefined) return true;
  if (incoming.fetchedAt <= held.fetchedAt) return false;
  const a = incoming.state?.last_transaction_lt;
  const b = held.state?.last_transaction_lt;
  if (a === null || a === undefined || b === null || b === undefined) return true;
  return a.length !== b.length ? a.length > b.length : a >= b;
}

/**
 * A new wallets snapshot: `held` with `records` put in (each only when `accept` says so), in
 * watchlist order, wallets off the watchlist left out. When every record replaces one
 * already held, the order is kept without walking the watchlist, and the records are put
 * into `into` when given (held's own map, which its holder may change: a million-entry map
 * is not copied for a few changed wallets), else into a copy. Returns null when nothing changed.
 */
export function mergeWallets(
  held: WalletsSnapshot | null,
  records: ReadonlyMap<string, WalletRecord>,
  watchlist: readonly { readonly raw: string }[],
  accept: (incoming: WalletRecord, held: WalletRecord | undefined) => boolean,
  into?: Map<string, WalletRecord>,
): OwnedWallets | null {
  const before = held?.wallets;
  if (into !== undefined && into !== before) throw new Error('mergeWallets: `into` must be the held map');
  let fetchedAt = held?.fetchedAt ?? 0;
  let changed = 0;
  let allHeld = before !== undefined;
  for (const [raw, record] of records) {
    const current = before?.get(raw);
    if (!accept(record, current)) continue;
    changed += 1;
    if (current === undefined) allHeld = false;
    if (record.fetchedAt > fetchedAt) fetchedAt = record.fetchedAt;
  }
  if (changed === 0) return null;
  if (allHeld && before !== undefined) {
    const accepted = [...records].filter(([raw, record]) => accept(record, before.get(raw)));
    const wallets = into ?? new Map(before);
    for (const [raw, record] of accepted) wallets.set(raw, record);
    return { wallets, fetchedAt };
  }
  // Records off the watchlist are left out, and count for nothing.
  const wallets = new Map<string, WalletRecord>();
  fetchedAt = held?.fetchedAt ?? 0;
  for (const { raw } of watchlist) {
    const current = before?.get(raw);
    const record = records.get(raw);
    const kept = record !== undefined && accept(record, current) ? record : current;
    if (kept === undefined) continue;
    wallets.set(raw, kept);
    if (kept.fetchedAt > fetchedAt) fetchedAt = kept.fetchedAt;
  }
  return { wallets, fetchedAt };
}
