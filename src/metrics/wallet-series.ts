import type { WatchedWallet } from '../config/watchlist.js';
import { addressBookEntry } from '../snapshot/address-book.js';
import { isFresh } from '../snapshot/store.js';
import type { Snapshot, WalletsSnapshot } from '../snapshot/types.js';
import type { WalletSeriesRenderer } from './exposition.js';
import { CHAIN_METRICS } from './registry.js';
import { createExposition, escapeLabelValue } from './text-format.js';

/** Nanotons (decimal string) → TON as an exact decimal string: "1500000000" → "1.5". */
export function nanotonsToTons(nanotons: string): string {
  const padded = nanotons.padStart(10, '0');
  const whole = padded.slice(0, -9).replace(/^0+(?=\d)/, '');
  const fraction = padded.slice(-9).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** `address="…",name="…"` plus the entry's own labels (sorted), escaped once per entry. */
function baseLabels(wallet: WatchedWallet): string {
  const own = Object.keys(wallet.labels)
    .sort()
    .map((k) => `,${k}="${escapeLabelValue(wallet.labels[k] ?? '')}"`)
    .join('');
  return `address="${wallet.raw}",name="${escapeLabelValue(wallet.name)}"${own}`;
}

/**
 * The per-wallet series of one snapshot, in the text format. Pure. Wallets whose data is
 * older than maxAgeSeconds have no data series; those unknown to the upstream have only
 * `ton_wallet_status{status="unknown"}`.
 */
export function renderWalletSeries(options: {
  wallets: WalletsSnapshot | null;
  watchlist: readonly WatchedWallet[];
  now: number;
  maxAgeSeconds: number;
  testnet: boolean;
  labelsOf?: (wallet: WatchedWallet) => string;
}): string {
  const out = createExposition();
  const labelsOf = options.labelsOf ?? baseLabels;
  const m = CHAIN_METRICS;
  for (const wallet of options.watchlist) {
    const base = labelsOf(wallet);
    if (wallet.minBalanceTons !== undefined) out.add(m.walletMinBalanceTons, `{${base}}`, String(wallet.minBalanceTons));
    const record = options.wallets?.wallets.get(wallet.raw);
    if (!record || !isFresh(record.fetchedAt, options.now, options.maxAgeSeconds)) continue;
    const state = record.state;
    out.add(m.walletStatus, `{${base},status="${escapeLabelValue(state?.status ?? 'unknown')}"}`, '1');
    if (state === null) continue;
    if (state.balance !== null) out.add(m.walletBalanceTons, `{${base}}`, nanotonsToTons(state.balance));
    if (state.seqno !== null) out.add(m.walletSeqno, `{${base}}`, String(state.seqno));
    if (state.last_transaction_lt !== null) out.add(m.walletLastTransactionLt, `{${base}}`, state.last_transaction_lt);
    const friendly = addressBookEntry(record, wallet.address, options.testnet).user_friendly ?? '';
    out.add(
      m.walletInfo,
      `{${base},user_friendly="${escapeLabelValue(friendly)}",wallet_type="${escapeLabelValue(state.wallet_type ?? '')}",wallet_id="${state.wallet_id ?? ''}"}`,
      '1',
    );
    for (const [currency, amount] of Object.entries(state.extra_currencies)) {
      out.add(m.walletExtraCurrencyBalance, `{${base},currency="${escapeLabelValue(currency)}"}`, amount);
    }
  }
  return out.text();
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
  const labels = new WeakMap<WatchedWallet, string>();
  const labelsOf = (wallet: WatchedWallet): string => {
    let text = labels.get(wallet);
    if (text === undefined) {
      text = baseLabels(wallet);
      labels.set(wallet, text);
    }
    return text;
  };
  let cached: { wallets: WalletsSnapshot | null; watchlist: readonly WatchedWallet[]; maxAge: number; testnet: boolean; validUntil: number; text: string } | null = null;
  return {
    render(snapshot: Snapshot, now: number): string {
      const watchlist = settings.watchlist();
      const maxAge = settings.maxAgeSeconds();
      const testnet = settings.testnet();
      if (cached && cached.wallets === snapshot.wallets && cached.watchlist === watchlist && cached.maxAge === maxAge && cached.testnet === testnet && now < cached.validUntil) {
        return cached.text;
      }
      const text = renderWalletSeries({ wallets: snapshot.wallets, watchlist, now, maxAgeSeconds: maxAge, testnet, labelsOf });
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
