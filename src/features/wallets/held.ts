import type { WalletRecord } from '../../accounts/types.js';
import { watchlistKeys } from '../../config/watchlist.js';
import type { FeatureContext } from '../feature.js';
import { isNewer, mergeWallets } from './merge.js';
import type { WalletsSnapshot } from './types.js';
import { decodeRecord, encodeRecord } from './wire.js';

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

export function createWalletsHeld(ctx: Pick<FeatureContext, 'cluster' | 'current'>): WalletsHeld {
  let held: WalletsSnapshot | null = null;
  const pending = new Map<string, WalletRecord>();
  let applyTimer: NodeJS.Timeout | undefined;
  let applyMs = 0;
  const watchlist = () => ctx.current().config.watchlist;

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
      applyTimer ??= setTimeout(apply, Math.max(APPLY_AFTER_MS, applyMs * APPLY_SHARE));
    },
    *held() {
      const records = held?.wallets;
      if (records === undefined) return;
      for (const { raw } of ctx.cluster.owned(watchlist())) {
        const record = records.get(raw);
        if (record !== undefined) yield record;
      }
    },
  });

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
      const merged = mergeWallets(held, snapshot.wallets, watchlist(), () => true);
      if (merged !== null) held = merged;
      channel.publish(snapshot.wallets.values());
    },
    stop: apply,
  };
}
