import type { WatchedWallet } from '../domain/config.js';
import type { UpstreamLag } from '../domain/upstream.js';
import { ageSeconds, isFresh, staleFrom } from '../snapshot/freshness.js';
import { addressBookEntry } from '../snapshot/address-book.js';
import type { Snapshot, WalletsSnapshot } from '../snapshot/types.js';
import { parseAddress } from '../ton/address.js';
import { signedShardToHex } from '../ton/shard.js';
import type { QueueHistory } from './history.js';
import type { PressureLevel, StatusModel, WalletPage, WalletRow } from './types.js';
import type { UpstreamHealth } from './upstream-health.js';

/**
 * Snapshot, history and upstream health → the status page's model. Pure but for caches
 * keyed by the snapshot objects: a new snapshot is worked out once, not per request.
 */

/** The alert rules' thresholds (TonQueuePressureHigh, TonQueuePressureCritical); a test keeps them equal. */
export const PRESSURE_WARNING = 0.5;
export const PRESSURE_CRITICAL = 0.8;
/** Wallet rows per page. */
export const WALLET_PAGE_SIZE = 50;

export interface StatusSources {
  readonly version: string;
  readonly now: number;
  readonly snapshot: Snapshot;
  readonly maxAgeSeconds: number;
  readonly testnet: boolean;
  readonly watchlist: readonly WatchedWallet[];
  readonly upstreams: readonly { readonly name: string; readonly url: string }[];
  readonly upstreamHealth: UpstreamHealth;
  readonly lags: ReadonlyMap<string, UpstreamLag>;
  readonly history: QueueHistory;
}

export function pressureLevel(ratio: number | null): PressureLevel {
  if (ratio === null) return 'ok';
  return ratio > PRESSURE_CRITICAL ? 'critical' : ratio > PRESSURE_WARNING ? 'warning' : 'ok';
}

/** Nanotons (decimal text) → TON, decimal text without trailing zeros. */
export function formatTons(nanotons: string): string {
  const negative = nanotons.startsWith('-');
  const digits = (negative ? nanotons.slice(1) : nanotons).padStart(10, '0');
  const whole = digits.slice(0, -9).replace(/^0+(?=\d)/, '');
  const fraction = digits.slice(-9).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

export interface StatusModelMaker {
  model(sources: StatusSources): StatusModel;
  wallets(sources: StatusSources, query: string, page: number): WalletPage;
}

export function createStatusModel(): StatusModelMaker {
  /**
   * Rows of the watchlist for one wallets snapshot and config, the ones needing attention
   * first; worked out again when the snapshot or the config changes, or when the first of
   * its records turns stale (rows show fresh data only).
   */
  let ordered: {
    snapshot: WalletsSnapshot | null;
    watchlist: readonly WatchedWallet[];
    maxAgeSeconds: number;
    validUntil: number;
    rows: WalletRow[];
    attention: number;
  } | null = null;

  function rowsOf(sources: StatusSources): { rows: WalletRow[]; attention: number } {
    const wallets = sources.snapshot.wallets;
    if (
      ordered !== null &&
      ordered.snapshot === wallets &&
      ordered.watchlist === sources.watchlist &&
      ordered.maxAgeSeconds === sources.maxAgeSeconds &&
      sources.now < ordered.validUntil
    ) {
      return ordered;
    }
    const needing: WalletRow[] = [];
    const others: WalletRow[] = [];
    let validUntil = Infinity;
    for (const wallet of sources.watchlist) {
      const row = walletRow(wallet, wallets, sources);
      (row.attention === null ? others : needing).push(row);
      const record = wallets?.wallets.get(wallet.raw);
      if (record !== undefined && isFresh(record.fetchedAt, sources.now, sources.maxAgeSeconds))
        validUntil = Math.min(validUntil, staleFrom(record.fetchedAt, sources.maxAgeSeconds));
    }
    ordered = {
      snapshot: wallets,
      watchlist: sources.watchlist,
      maxAgeSeconds: sources.maxAgeSeconds,
      validUntil,
      rows: [...needing, ...others],
      attention: needing.length,
    };
    return ordered;
  }

  return {
    model(sources) {
      const { snapshot, now } = sources;
      const queue = snapshot.queueSizes;
      const limit = queue?.extMsgQueueSizeLimit ?? 0;
      const { attention } = rowsOf(sources);
      return {
        version: sources.version,
        generatedAt: now,
        thresholds: { warning: PRESSURE_WARNING, critical: PRESSURE_CRITICAL },
        queue:
          queue === null
            ? null
            : {
                fetchedAt: queue.fetchedAt,
                ageSeconds: ageSeconds(queue.fetchedAt, now),
                fresh: isFresh(queue.fetchedAt, now, sources.maxAgeSeconds),
                upstream: queue.upstream,
                limit,
                shards: queue.shards.map((s) => {
                  const ratio = limit > 0 ? s.size / limit : null;
                  return { workchain: s.workchain, shard: signedShardToHex(s.shard), seqno: s.seqno, size: s.size, ratio, level: pressureLevel(ratio) };
                }),
              },
        history: sources.history.view(now),
        wallets: {
          watched: sources.watchlist.length,
          fetchedAt: snapshot.wallets?.fetchedAt ?? null,
          ageSeconds: snapshot.wallets ? ageSeconds(snapshot.wallets.fetchedAt, now) : null,
          attention,
        },
        upstreams: sources.upstreams.map((u) => {
          const health = sources.upstreamHealth.view(u.name, now);
          const lag = sources.lags.get(u.name);
          return {
            name: u.name,
            url: u.url,
            lastSuccessAt: health.lastSuccessAt ?? null,
            recentCodes: health.recentCodes,
            rateLimited: health.recentCodes['429'] ?? 0,
            lagBlocks: lag?.lagBlocks ?? null,
            indexerLagBlocks: lag?.indexerLagBlocks ?? null,
          };
        }),
      };
    },
    wallets(sources, query, page) {
      const { rows } = rowsOf(sources);
      const text = query.trim();
      let matched: WalletRow[] = rows;
      if (text !== '') {
        const parsed = parseAddress(text);
        const lower = text.toLowerCase();
        matched = parsed.ok ? rows.filter((r) => r.address === parsed.value.raw) : rows.filter((r) => r.name.toLowerCase().includes(lower));
      }
      const pages = Math.max(1, Math.ceil(matched.length / WALLET_PAGE_SIZE));
      const current = Math.min(Math.max(1, Math.floor(page) || 1), pages);
      return { query: text, page: current, pages, total: matched.length, rows: matched.slice((current - 1) * WALLET_PAGE_SIZE, current * WALLET_PAGE_SIZE) };
    },
  };
}

function walletRow(wallet: WatchedWallet, snapshot: WalletsSnapshot | null, sources: StatusSources): WalletRow {
  const record = snapshot?.wallets.get(wallet.raw);
  const fresh = record !== undefined && isFresh(record.fetchedAt, sources.now, sources.maxAgeSeconds);
  const state = fresh ? record.state : null;
  const status = !fresh ? 'no data' : state === null ? 'unknown' : state.status;
  const balance = state?.balance ?? null;
  const below = balance !== null && wallet.minBalanceTons !== undefined && BigInt(balance) < BigInt(Math.round(wallet.minBalanceTons * 1e9));
  return {
    name: wallet.name,
    address: wallet.raw,
    userFriendly:
      addressBookEntry(fresh ? record : undefined, wallet.raw, sources.testnet).user_friendly ??
      addressBookEntry(undefined, wallet.raw, sources.testnet).user_friendly ??
      wallet.raw,
    status,
    balanceTons: balance === null ? null : formatTons(balance),
    minBalanceTons: wallet.minBalanceTons ?? null,
    attention: below ? 'below_threshold' : fresh && status !== 'active' ? 'not_active' : null,
  };
}
