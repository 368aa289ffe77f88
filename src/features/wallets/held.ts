import type { WalletRecord } from '../../accounts/types.js';
import type { Marker } from '../../cluster/view.js';
import type { WatchedWallet } from '../../domain/config.js';
import { forEachInSlices } from '../../domain/slices.js';
import { watchlistKeys } from '../../config/watchlist.js';
import type { FeatureContext } from '../feature.js';
import { createHeldState, type HeldState } from './held-state.js';
import { isNewer } from './merge.js';
import type { WalletsSnapshot } from './types.js';
import { decodeRecord, encodeRecord } from './wire.js';
import { createStringPool, type StringPool } from './string-pool.js';
import { applyWalletMarkers, changedSince, markerOffsets, walletMarker } from './markers.js';

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
  /**
   * A wallet cycle's snapshot: in one process, as it is; in a cluster, this replica's share
   * put into what the others' shares reach, and handed to them, a slice at a time.
   */
  polled(snapshot: WalletsSnapshot): Promise<void>;
  /** Applies what was received and not yet applied (shutdown). */
  stop(): void;
}

/** The wallets a watchlist change dropped and added, raw. */
function watchlistChange(before: readonly WatchedWallet[], list: readonly WatchedWallet[]): { dropped: string[]; added: string[] } {
  const now = watchlistKeys(list);
  const was = watchlistKeys(before);
  return { dropped: [...was.keys()].filter((raw) => !now.has(raw)), added: [...now.keys()].filter((raw) => !was.has(raw)) };
}

/**
 * Of the owned wallets this cycle polled, those whose record changed since it was last
 * shared; `shared` is brought up to date with them. It costs a lookup a wallet and a write
 * a changed one (a steady cycle at a million wallets changes few), in slices.
 */
async function changedSinceShared(
  owned: readonly { readonly raw: string }[],
  held: () => WalletsSnapshot | null,
  shared: Map<string, WalletRecord>,
  polled: WalletsSnapshot,
): Promise<WalletRecord[]> {
  const changed: WalletRecord[] = [];
  await forEachInSlices(owned, ({ raw }) => {
    const record = held()?.wallets.get(raw);
    if (record === undefined || !polled.wallets.has(raw) || !changedSince(shared.get(raw), record)) return;
    changed.push(record);
    shared.set(raw, record);
  });
  return changed;
}

/**
 * What other replicas shared, kept apart until applied together: records newer than what
 * waits (and only of watched wallets). A marker advances the fetch time of the records it
 * covers in place, pending or held: no new record for a wallet fetched again unchanged.
 */
function createReceived(
  watchlist: () => readonly WatchedWallet[],
  held: HeldState,
): {
  records(records: readonly WalletRecord[]): void;
  /** How many markers were left (for a share this replica sees differently). */
  markers(lines: readonly string[], owned: Parameters<typeof applyWalletMarkers>[1], toProcess: (wall: number) => number): number;
  apply(): void;
} {
  const pending = new Map<string, WalletRecord>();
  let applyTimer: NodeJS.Timeout | undefined;
  let applyMs = 0;
  const apply = (): void => {
    clearTimeout(applyTimer);
    applyTimer = undefined;
    if (pending.size === 0) return;
    const started = performance.now();
    held.merge(pending, watchlist(), isNewer);
    pending.clear();
    applyMs = performance.now() - started;
  };
  const later = (): void => {
    applyTimer ??= setTimeout(apply, Math.max(APPLY_AFTER_MS, applyMs * APPLY_SHARE));
  };
  return {
    records(records) {
      const watched = watchlistKeys(watchlist());
      for (const record of records) {
        if (!watched.has(record.raw)) continue;
        if (isNewer(record, pending.get(record.raw))) pending.set(record.raw, record);
      }
      later();
    },
    markers(lines, owned, toProcess) {
      const lookup = (raw: string): WalletRecord | undefined => pending.get(raw) ?? held.current()?.wallets.get(raw);
      let newest = -Infinity;
      const { left } = applyWalletMarkers(lines, owned, lookup, toProcess, (record, fetchedAt) => {
        record.fetchedAt = fetchedAt;
        if (fetchedAt > newest) newest = fetchedAt;
      });
      if (newest > -Infinity) held.advanced(newest);
      return left;
    },
    apply,
  };
}

export function createWalletsHeld(
  ctx: Pick<FeatureContext, 'cluster' | 'current' | 'wallOffset' | 'logger'>,
  pool: StringPool = createStringPool(),
): WalletsHeld {
  const state = createHeldState();
  const watchlist = () => ctx.current().config.watchlist;
  const received = createReceived(watchlist, state);
  /** What this replica last shared of each wallet it owns: a record that differs from it in more than its fetch time goes out whole; the others, as markers. */
  let shared = new Map<string, WalletRecord>();
  let sharedWatchlist: readonly WatchedWallet[] | null = null;

  const channel = ctx.cluster.channel<WalletRecord>('wallets', {
    keyOf: (record) => record.raw,
    encode: encodeRecord,
    decode: (line, toProcess) => decodeRecord(line, toProcess, pool),
    receive: (records) => received.records(records),
    receiveMarkers(lines, from) {
      const toProcess = (wall: number): number => wall - ctx.wallOffset();
      const left = received.markers(lines, ctx.cluster.ownedBy(from, watchlist()), toProcess);
      if (left > 0)
        ctx.logger.debug({ member: from, markers: lines.length, left }, 'markers for a share this replica sees differently; left until the member lists agree');
    },
    *held() {
      const records = state.current()?.wallets;
      if (records === undefined) return;
      // What goes out now is what has been shared: wallets this replica no longer owns are forgotten.
      shared = new Map();
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
    const { dropped, added } = watchlistChange(before, list);
    for (const raw of dropped) shared.delete(raw);
    if (ctx.cluster.leads()) channel.forget(dropped);
    channel.load(added);
  };

  /** This replica's share of a cycle: the records that changed since it last shared them, and markers for all. */
  const share = async (snapshot: WalletsSnapshot): Promise<void> => {
    const owned = ctx.cluster.owned(watchlist());
    const changed = await changedSinceShared(owned, () => state.current(), shared, snapshot);
    const markers: Marker[] = [];
    await forEachInSlices(
      markerOffsets(owned.length),
      (offset) => {
        const held = state.current();
        if (held !== null) markers.push(walletMarker(owned, held.wallets, ctx.wallOffset(), offset));
      },
      1,
    );
    channel.publish(changed, markers);
  };

  return {
    current: () => state.current(),
    replace: (snapshot) => state.set(snapshot),
    async polled(snapshot) {
      if (!ctx.cluster.enabled) {
        state.set(snapshot);
        return;
      }
      followWatchlist(watchlist());
      await state.put(snapshot.wallets, watchlist);
      await share(snapshot);
    },
    stop: () => received.apply(),
  };
}
