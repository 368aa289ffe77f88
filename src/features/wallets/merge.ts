import type { WalletRecord } from '../../accounts/types.js';
import type { WalletsSnapshot } from './types.js';

/** A snapshot made here: its map is new (in watchlist order), or the one `into` named, and its holder may put records into it. */
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

/** Held's own map, for mergeWallets to put records into, and the wallets it may add to it. */
export interface MergeInto {
  /** held's map itself, holding only wallets of `watched`. */
  readonly wallets: Map<string, WalletRecord>;
  /** The watchlist's keys: a record of a wallet not held yet goes in only if it is watched. */
  readonly watched: { has(raw: string): boolean };
}

/**
 * A new wallets snapshot: `held` with `records` put in (each only when `accept` says so),
 * wallets off the watchlist left out. With `into`, the records go into held's own map:
 * replacing held ones where they are, new ones after the others, so a merge costs what it
 * puts in, not the size of the map (a replica's apply at a million wallets took seconds of
 * a blocked event loop when it rebuilt the map, and missed its heartbeats). Without it,
 * into a new map in watchlist order. Returns null when nothing changed.
 */
export function mergeWallets(
  held: WalletsSnapshot | null,
  records: ReadonlyMap<string, WalletRecord>,
  watchlist: readonly { readonly raw: string }[],
  accept: (incoming: WalletRecord, held: WalletRecord | undefined) => boolean,
  into?: MergeInto,
): OwnedWallets | null {
  const before = held?.wallets;
  if (into !== undefined && into.wallets !== before) throw new Error('mergeWallets: `into` must be the held map');
  let fetchedAt = held?.fetchedAt ?? 0;
  const accepted: [string, WalletRecord][] = [];
  for (const [raw, record] of records) {
    const current = before?.get(raw);
    if (!accept(record, current) || (current === undefined && into !== undefined && !into.watched.has(raw))) continue;
    accepted.push([raw, record]);
    if (record.fetchedAt > fetchedAt) fetchedAt = record.fetchedAt;
  }
  if (accepted.length === 0) return null;
  if (into !== undefined) {
    for (const [raw, record] of accepted) into.wallets.set(raw, record);
    return { wallets: into.wallets, fetchedAt };
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
