import { jettonsOf, type WatchedWallet } from '../../domain/config.js';
import { decimalsOf, jettonUnits, type JettonSettings, type JettonsSnapshot } from '../../domain/jettons.js';
import type { UpstreamLag } from '../../domain/upstream.js';
import { ageSeconds, isFresh, staleFrom } from '../../snapshot/freshness.js';
import { addressBookEntry } from '../../accounts/address-book.js';
import type { Snapshot, WalletsSnapshot } from '../../snapshot/types.js';
import { parseAddress } from '../../ton/address.js';
import { signedShardToHex } from '../../ton/shard.js';
import type { QueueHistory } from '../queue-sizes/history.js';
import type { JettonCell, PressureLevel, StatusModel, WalletPage, WalletRow } from './types.js';
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
  /** The jetton columns: watched jettons and where their balances are (absent without jettons). */
  readonly jettons?: StatusJettons | undefined;
}

/** What the status page shows of jettons. */
export interface StatusJettons {
  readonly settings: readonly JettonSettings[];
  readonly watchJettons: readonly string[];
  readonly snapshot: JettonsSnapshot | null;
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
  wallets(sources: StatusSources, query: string, page: number, sort?: string): WalletPage;
}

/** A wallet page's sort keys: every row's value for `sort` (larger first for balances, names A to Z); null for the default order. */
function sortKey(sort: string, names: readonly string[]): ((row: WalletRow) => number | string) | null {
  if (sort === 'name') return (row) => row.name.toLowerCase();
  if (sort === 'balance') return (row) => (row.balanceTons === null ? Infinity : -Number(row.balanceTons));
  const jetton = sort.startsWith('jetton:') ? names.indexOf(sort.slice(7)) : -1;
  if (jetton === -1) return null;
  return (row) => {
    const balance = row.jettons[jetton]?.balance ?? null;
    return balance === null ? Infinity : -Number(balance);
  };
}

export function createStatusModel(): StatusModelMaker {
  /**
   * Rows of the watchlist for one wallets snapshot and config, the ones needing attention
   * first; worked out again when the snapshot or the config changes, or when the first of
   * its records turns stale (rows show fresh data only).
   */
  let ordered: {
    snapshot: WalletsSnapshot | null;
    jettons: StatusJettons | undefined;
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
      ordered.jettons?.snapshot === sources.jettons?.snapshot &&
      ordered.jettons?.settings === sources.jettons?.settings &&
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
      jettons: sources.jettons,
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
    wallets(sources, query, page, sort = '') {
      const { rows } = rowsOf(sources);
      const names = (sources.jettons?.settings ?? []).map((j) => j.name);
      const text = query.trim();
      let matched: WalletRow[] = rows;
      if (text !== '') {
        const parsed = parseAddress(text);
        const lower = text.toLowerCase();
        matched = parsed.ok ? rows.filter((r) => r.address === parsed.value.raw) : rows.filter((r) => r.name.toLowerCase().includes(lower));
      }
      const key = sortKey(sort, names);
      if (key !== null) {
        const keyed = matched.map((row) => [key(row), row] as const);
        // Stable: rows of one value keep the default order (those needing attention first).
        keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        matched = keyed.map(([, row]) => row);
      }
      const pages = Math.max(1, Math.ceil(matched.length / WALLET_PAGE_SIZE));
      const current = Math.min(Math.max(1, Math.floor(page) || 1), pages);
      const rowsOfPage = matched.slice((current - 1) * WALLET_PAGE_SIZE, current * WALLET_PAGE_SIZE);
      return { query: text, page: current, pages, total: matched.length, jettons: names, sort: key === null ? '' : sort, rows: rowsOfPage };
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
  const jettons = jettonCells(wallet, sources);
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
    jettons,
    attention: below ? 'below_threshold' : jettons.some((cell) => cell.below) ? 'below_jetton_threshold' : fresh && status !== 'active' ? 'not_active' : null,
  };
}

/** The wallet's cell for each configured jetton: its fresh balance in jetton units where it is watched for it, and its threshold. */
function jettonCells(wallet: WatchedWallet, sources: StatusSources): JettonCell[] {
  const jettons = sources.jettons;
  if (jettons === undefined || jettons.settings.length === 0) return [];
  const watched = jettonsOf(jettons, wallet);
  return jettons.settings.map((jetton) => {
    if (!watched.includes(jetton.name)) return { balance: null, min: null, below: false };
    const record = jettons.snapshot?.jettons.get(jetton.name)?.get(wallet.raw);
    const fresh = record !== undefined && isFresh(record.fetchedAt, sources.now, sources.maxAgeSeconds);
    const places = decimalsOf(jetton, jettons.snapshot);
    const balance = fresh && places !== null ? jettonUnits(record.balance, places) : null;
    const min = wallet.minJettonBalance?.[jetton.name] ?? null;
    return { balance, min, below: balance !== null && min !== null && Number(balance) < min };
  });
}
