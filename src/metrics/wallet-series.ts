import type { WatchedWallet } from '../config/watchlist.js';
import { addressBookEntry } from '../snapshot/address-book.js';
import { isFresh } from '../snapshot/store.js';
import type { ServedWalletState, Snapshot, WalletRecord, WalletsSnapshot } from '../snapshot/types.js';
import type { WalletSeriesRenderer } from './exposition.js';
import { CHAIN_METRICS, type MetricFamily } from './registry.js';
import { escapeLabelValue } from './text-format.js';

/** Nanotons (decimal string) → TON as an exact decimal string: "1500000000" → "1.5". */
export function nanotonsToTons(nanotons: string): string {
  // Hot path (once per wallet per poll): index arithmetic instead of regexes.
  let start = 0;
  while (start < nanotons.length - 1 && nanotons.charCodeAt(start) === 48) start += 1;
  const digits = start === 0 ? nanotons : nanotons.slice(start);
  if (digits.length <= 9) {
    if (digits === '0') return '0';
    let end = digits.length;
    while (end > 0 && digits.charCodeAt(end - 1) === 48) end -= 1;
    return `0.${'0'.repeat(9 - digits.length)}${digits.slice(0, end)}`;
  }
  const whole = digits.slice(0, -9);
  let end = digits.length;
  while (end > whole.length && digits.charCodeAt(end - 1) === 48) end -= 1;
  return end === whole.length ? whole : `${whole}.${digits.slice(whole.length, end)}`;
}

/** `address="…",name="…"` plus the entry's own labels (sorted), escaped. */
function baseLabels(wallet: WatchedWallet): string {
  const own = Object.keys(wallet.labels)
    .sort()
    .map((k) => `,${k}="${escapeLabelValue(wallet.labels[k] ?? '')}"`)
    .join('');
  return `address="${wallet.raw}",name="${escapeLabelValue(wallet.name)}"${own}`;
}

/** The families a wallet's data contributes to, in output order (min balance comes first). */
const DATA_FAMILIES: readonly MetricFamily[] = [
  CHAIN_METRICS.walletStatus,
  CHAIN_METRICS.walletBalanceTons,
  CHAIN_METRICS.walletSeqno,
  CHAIN_METRICS.walletLastTransactionLt,
  CHAIN_METRICS.walletInfo,
  CHAIN_METRICS.walletExtraCurrencyBalance,
];

/** One state's sample lines per data family ('' where it has none), with what they depend on. */
interface StateLines {
  readonly base: string;
  readonly testnet: boolean;
  readonly bookFriendly: string | null | undefined;
  readonly lines: readonly string[];
}

/** Caches shared across renders: labels per watched wallet, lines per wallet state. */
export interface WalletSeriesCaches {
  readonly labels: WeakMap<WatchedWallet, string>;
  readonly lines: WeakMap<ServedWalletState, StateLines>;
}

export function createWalletSeriesCaches(): WalletSeriesCaches {
  return { labels: new WeakMap(), lines: new WeakMap() };
}

function stateLines(wallet: WatchedWallet, base: string, record: WalletRecord, state: ServedWalletState, testnet: boolean): string[] {
  const friendly = addressBookEntry(record, wallet.address, testnet).user_friendly ?? '';
  const extra = Object.entries(state.extra_currencies)
    .map(([currency, amount]) => `${CHAIN_METRICS.walletExtraCurrencyBalance.name}{${base},currency="${escapeLabelValue(currency)}"} ${amount}`)
    .join('\n');
  return [
    `${CHAIN_METRICS.walletStatus.name}{${base},status="${escapeLabelValue(state.status)}"} 1`,
    state.balance === null ? '' : `${CHAIN_METRICS.walletBalanceTons.name}{${base}} ${nanotonsToTons(state.balance)}`,
    state.seqno === null ? '' : `${CHAIN_METRICS.walletSeqno.name}{${base}} ${state.seqno}`,
    state.last_transaction_lt === null ? '' : `${CHAIN_METRICS.walletLastTransactionLt.name}{${base}} ${state.last_transaction_lt}`,
    `${CHAIN_METRICS.walletInfo.name}{${base},user_friendly="${escapeLabelValue(friendly)}",wallet_type="${escapeLabelValue(state.wallet_type ?? '')}",wallet_id="${state.wallet_id ?? ''}"} 1`,
    extra,
  ];
}

/**
 * The per-wallet series of one snapshot, in the text format. Pure (the caches only hold
 * what the same inputs would produce again). Wallets whose data is older than
 * maxAgeSeconds have no data series; those unknown to the upstream have only
 * `ton_wallet_status{status="unknown"}`.
 */
export function renderWalletSeries(options: {
  wallets: WalletsSnapshot | null;
  watchlist: readonly WatchedWallet[];
  now: number;
  maxAgeSeconds: number;
  testnet: boolean;
  caches?: WalletSeriesCaches;
}): string {
  const caches = options.caches ?? createWalletSeriesCaches();
  const minBalance: string[] = [];
  const data: string[][] = DATA_FAMILIES.map(() => []);
  for (const wallet of options.watchlist) {
    let base = caches.labels.get(wallet);
    if (base === undefined) {
      base = baseLabels(wallet);
      caches.labels.set(wallet, base);
    }
    if (wallet.minBalanceTons !== undefined) minBalance.push(`${CHAIN_METRICS.walletMinBalanceTons.name}{${base}} ${wallet.minBalanceTons}`);
    const record = options.wallets?.wallets.get(wallet.raw);
    if (!record || !isFresh(record.fetchedAt, options.now, options.maxAgeSeconds)) continue;
    const state = record.state;
    if (state === null) {
      data[0]?.push(`${CHAIN_METRICS.walletStatus.name}{${base},status="unknown"} 1`);
      continue;
    }
    const bookFriendly = record.addressBook?.user_friendly;
    let cached = caches.lines.get(state);
    if (!cached || cached.base !== base || cached.testnet !== options.testnet || cached.bookFriendly !== bookFriendly) {
      cached = { base, testnet: options.testnet, bookFriendly, lines: stateLines(wallet, base, record, state, options.testnet) };
      caches.lines.set(state, cached);
    }
    const { lines } = cached;
    for (let i = 0; i < lines.length; i += 1) {
      const line = lines[i];
      if (line !== undefined && line !== '') data[i]?.push(line);
    }
  }
  let out = family(CHAIN_METRICS.walletMinBalanceTons, minBalance);
  DATA_FAMILIES.forEach((f, i) => (out += family(f, data[i] ?? [])));
  return out;
}

function family(metric: MetricFamily, lines: readonly string[]): string {
  return lines.length === 0 ? '' : `# HELP ${metric.name} ${metric.help}\n# TYPE ${metric.name} ${metric.type}\n${lines.join('\n')}\n`;
}

/**
 * Renders the wallet series once per (snapshot, watchlist) and again only when a wallet's
 * data turns stale, never per scrape.
 */
export function createWalletSeriesRenderer(settings: {
  watchlist: () => readonly WatchedWallet[];
  maxAgeSeconds: () => number;
  testnet: () => boolean;
}): WalletSeriesRenderer {
  const caches = createWalletSeriesCaches();
  let cached: { wallets: WalletsSnapshot | null; watchlist: readonly WatchedWallet[]; maxAge: number; testnet: boolean; validUntil: number; text: string } | null = null;
  return {
    render(snapshot: Snapshot, now: number): string {
      const watchlist = settings.watchlist();
      const maxAge = settings.maxAgeSeconds();
      const testnet = settings.testnet();
      if (cached && cached.wallets === snapshot.wallets && cached.watchlist === watchlist && cached.maxAge === maxAge && cached.testnet === testnet && now < cached.validUntil) {
        return cached.text;
      }
      const text = renderWalletSeries({ wallets: snapshot.wallets, watchlist, now, maxAgeSeconds: maxAge, testnet, caches });
      // The text stays right until the oldest fresh record turns stale.
      let validUntil = Infinity;
      for (const record of snapshot.wallets?.wallets.values() ?? []) {
        // The first millisecond at which isFresh() turns false for this record.
        const staleAt = record.fetchedAt + maxAge * 1000 + 1;
        if (staleAt > now && staleAt < validUntil) validUntil = staleAt;
      }
      cached = { wallets: snapshot.wallets, watchlist, maxAge, testnet, validUntil, text };
      return text;
    },
  };
}
