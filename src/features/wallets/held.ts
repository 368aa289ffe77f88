import type { WalletRecord } from '../../accounts/types.js';
import type { WatchedWallet } from '../../domain/config.js';
import { watchlistKeys } from '../../config/watchlist.js';
import type { FeatureContext } from '../feature.js';
import { isNewer, mergeWallets } from './merge.js';
import type { WalletsSnapshot } from './types.js';
import { decodeRecord, encodeRecord } from './wire.js';
import { applyWalletMarkers, changedSince, walletMarkers } from './markers.js';

/**
 * Received records wait at least this long to be applied together (one new snapshot for
 * many entries), and at least ten times as long as the last application took: a new
 * snapshot copies the map of every wallet held (a million entries take ~100 ms), so
 * applying costs at most a tenth of the replica's time however large the watchlist.
 */
const APPLY_AFTER_MS = 250;
const APPLY_SHARE = 10;

/** The wallets' snapshot in force, and how what replicas poll gets into it. */
export interface WalletsHeld {
  current(): WalletsSnapshot | null;
  /** The persisted snapshot, as loaded at start. */
  replace(snapshot: WalletsSnapshot): void;
  /** A wallet cycle's snapshot: in one process, as it is; in a cluster, this replica's share put into what the others' shares reach, and handed to them. */
  polled(snapshot: WalletsSnapshot): void;
  /** Applies what was received and not yet applied (shutdown). */
  stop(): void;
}

export function createWalletsHeld(ctx: Pick<FeatureContext, 'cluster' | 'current' | 'wallOffset' | 'logger'>): WalletsHeld {
  let held: WalletsSnapshot | null = null;
  const pending = new Map<string, WalletRecord>();
  let applyTimer: NodeJS.Timeout | undefined;
  let applyMs = 0;
  const watchlist = () => ctx.current().config.watchlist;
  /** What this replica last shared of each wallet it owns: a record that differs from it in more than its fetch time goes out whole; the others, as markers. */
  let shared = new Map<string, WalletRecord>();
  let sharedWatchlist: readonly WatchedWallet[] | null = null;
  const later = (): void => {
    applyTimer ??= setTimeout(apply, Math.max(APPLY_AFTER_MS, applyMs * APPLY_SHARE));
  };

  const apply = (): void => {
    clearTimeout(applyTimer);
    applyTimer = undefined;
    if (pending.size === 0) return;
    const started = performance.now();
    const next = mergeWallets(held, pending, watchlist(), isNewer);
    pending.clear();
    if (next !== null) held = next;
    applyMs = performance.now() - started;
  };

  const channel = ctx.cluster.channel<WalletRecord>('wallets', {
    keyOf: (record) => record.raw,
    encode: encodeRecord,
    decode: decodeRecord,
    receive(records) {
      const watched = watchlistKeys(watchlist());
      for (const record of records) {
        if (!watched.has(record.raw)) continue;
        if (isNewer(record, pending.get(record.raw))) pending.set(record.raw, record);
      }
      later();
    },
    receiveMarkers(lines, from) {
      const lookup = (raw: string): WalletRecord | undefined => pending.get(raw) ?? held?.wallets.get(raw);
      const toProcess = (wall: number): number => wall - ctx.wallOffset();
      const { left } = applyWalletMarkers(lines, ctx.cluster.ownedBy(from, watchlist()), lookup, toProcess, (record) => pending.set(record.raw, record));
      if (left > 0)
        ctx.logger.debug({ member: from, markers: lines.length, left }, 'markers for a share this replica sees differently; left until the member lists agree');
      later();
    },
    *held() {
      const records = held?.wallets;
      if (records === undefined) return;
      for (const { raw } of ctx.cluster.owned(watchlist())) {
        const record = records.get(raw);
        if (record === undefined) continue;
        shared.set(raw, record);
        yield record;
      }
    },
  });

  /** The watchlist changed: wallets it dropped out of the shared hash (the leader does it), wallets it added read from it. */
  const followWatchlist = (list: readonly WatchedWallet[]): void => {
    const before = sharedWatchlist;
    sharedWatchlist = list;
    if (before === null || before === list) return;
    const now = watchlistKeys(list);
    const was = watchlistKeys(before);
    if (ctx.cluster.leads()) channel.forget([...was.keys()].filter((raw) => !now.has(raw)));
    channel.load([...now.keys()].filter((raw) => !was.has(raw)));
  };

  /** This replica's share of a cycle: the records that changed since it last shared them, and markers for all. */
  const share = (snapshot: WalletsSnapshot): void => {
    const owned = ctx.cluster.owned(watchlist());
    const changed: WalletRecord[] = [];
    const next = new Map<string, WalletRecord>();
    for (const { raw } of owned) {
      const record = held?.wallets.get(raw);
      const last = shared.get(raw);
      if (record === undefined || !snapshot.wallets.has(raw)) {
        if (last !== undefined) next.set(raw, last);
        continue;
      }
      if (changedSince(last, record)) changed.push(record);
      next.set(raw, record);
    }
    shared = next;
    channel.publish(changed, held === null ? [] : walletMarkers(owned, held.wallets, ctx.wallOffset()));
  };

  return {
    current: () => held,
    replace(snapshot) {
      held = snapshot;
    },
    polled(snapshot) {
      if (!ctx.cluster.enabled) {
        held = snapshot;
        return;
      }
      followWatchlist(watchlist());
      const merged = mergeWallets(held, snapshot.wallets, watchlist(), () => true);
      if (merged !== null) held = merged;
      share(snapshot);
    },
    stop: apply,
  };
}
