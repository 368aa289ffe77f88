import type { WatchedWallet } from '../config/watchlist.js';
import { addressBookEntry } from '../snapshot/address-book.js';
import { isFresh } from '../snapshot/store.js';
import type { ServedWalletState, Snapshot, WalletRecord, WalletsSnapshot } from '../snapshot/types.js';
import type { WalletSeriesRenderer } from './exposition.js';
import { CHAIN_METRICS, type MetricFamily } from './registry.js';
import { escapeLabelValue, familyHeader } from './text-format.js';

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

/** Wallets per cached block of output. */
const CHUNK_WALLETS = 1000;
/** Marks a wallet with no exported data (no record, or stale). */
const ABSENT = Symbol('absent');
/** Marks a wallet the upstream does not know. */
const UNKNOWN = Symbol('unknown');

/**
 * One block of watched wallets, rendered and encoded: per family (min balance first, then
 * DATA_FAMILIES), the lines of these wallets. Reused while every wallet in the block,
 * its state object and its address-book name are the same as when it was rendered.
 */
interface Chunk {
  readonly wallets: readonly WatchedWallet[];
  readonly states: readonly (ServedWalletState | typeof ABSENT | typeof UNKNOWN)[];
  readonly friendly: readonly (string | null | undefined)[];
  readonly testnet: boolean;
  readonly families: readonly Buffer[];
}

/** Caches shared across renders: labels per watched wallet, encoded blocks of output. */
export interface WalletSeriesCaches {
  readonly labels: WeakMap<WatchedWallet, string>;
  chunks: Chunk[];
}

export function createWalletSeriesCaches(): WalletSeriesCaches {
  return { labels: new WeakMap(), chunks: [] };
}

function stateLines(wallet: WatchedWallet, base: string, record: WalletRecord, state: ServedWalletState, testnet: boolean, data: string[][]): void {
  const friendly = addressBookEntry(record, wallet.address, testnet).user_friendly ?? '';
  data[0]?.push(`${CHAIN_METRICS.walletStatus.name}{${base},status="${escapeLabelValue(state.status)}"} 1`);
  if (state.balance !== null) data[1]?.push(`${CHAIN_METRICS.walletBalanceTons.name}{${base}} ${nanotonsToTons(state.balance)}`);
  if (state.seqno !== null) data[2]?.push(`${CHAIN_METRICS.walletSeqno.name}{${base}} ${state.seqno}`);
  if (state.last_transaction_lt !== null) data[3]?.push(`${CHAIN_METRICS.walletLastTransactionLt.name}{${base}} ${state.last_transaction_lt}`);
  data[4]?.push(
    `${CHAIN_METRICS.walletInfo.name}{${base},user_friendly="${escapeLabelValue(friendly)}",wallet_type="${escapeLabelValue(state.wallet_type ?? '')}",wallet_id="${state.wallet_id ?? ''}"} 1`,
  );
  for (const currency in state.extra_currencies) {
    data[5]?.push(`${CHAIN_METRICS.walletExtraCurrencyBalance.name}{${base},currency="${escapeLabelValue(currency)}"} ${state.extra_currencies[currency]}`);
  }
}

const encode = (lines: readonly string[]): Buffer => (lines.length === 0 ? EMPTY : Buffer.from(`${lines.join('\n')}\n`));
const EMPTY = Buffer.alloc(0);

/**
 * The per-wallet series of one snapshot, in the text format, as encoded chunks. Pure (the
 * caches only hold what the same inputs would produce again). Wallets whose data is older
 * than maxAgeSeconds have no data series; those unknown to the upstream have only
 * `ton_wallet_status{status="unknown"}`.
 */
export function renderWalletSeries(options: {
  wallets: WalletsSnapshot | null;
  watchlist: readonly WatchedWallet[];
  now: number;
  maxAgeSeconds: number;
  testnet: boolean;
  caches?: WalletSeriesCaches;
}): Buffer[] {
  const caches = options.caches ?? createWalletSeriesCaches();
  const { watchlist, testnet } = options;
  const chunks: Chunk[] = [];
  for (let start = 0; start < watchlist.length; start += CHUNK_WALLETS) {
    const wallets = watchlist.slice(start, start + CHUNK_WALLETS);
    const records = wallets.map((w) => {
      const record = options.wallets?.wallets.get(w.raw);
      return record && isFresh(record.fetchedAt, options.now, options.maxAgeSeconds) ? record : undefined;
    });
    const states = records.map((r) => (r === undefined ? ABSENT : (r.state ?? UNKNOWN)));
    const friendly = records.map((r) => r?.addressBook?.user_friendly);
    const previous = caches.chunks[chunks.length];
    const same =
      previous !== undefined &&
      previous.testnet === testnet &&
      previous.wallets.length === wallets.length &&
      wallets.every((w, i) => previous.wallets[i] === w && previous.states[i] === states[i] && previous.friendly[i] === friendly[i]);
    if (same) {
      chunks.push(previous);
      continue;
    }
    const minBalance: string[] = [];
    const data: string[][] = DATA_FAMILIES.map(() => []);
    wallets.forEach((wallet, i) => {
      let base = caches.labels.get(wallet);
      if (base === undefined) {
        base = baseLabels(wallet);
        caches.labels.set(wallet, base);
      }
      if (wallet.minBalanceTons !== undefined) minBalance.push(`${CHAIN_METRICS.walletMinBalanceTons.name}{${base}} ${wallet.minBalanceTons}`);
      const record = records[i];
      const state = states[i];
      if (record === undefined || state === ABSENT || state === undefined) return;
      if (state === UNKNOWN) data[0]?.push(`${CHAIN_METRICS.walletStatus.name}{${base},status="unknown"} 1`);
      else stateLines(wallet, base, record, state, testnet, data);
    });
    chunks.push({ wallets, states, friendly, testnet, families: [encode(minBalance), ...data.map(encode)] });
  }
  caches.chunks = chunks;
  const out: Buffer[] = [];
  [CHAIN_METRICS.walletMinBalanceTons, ...DATA_FAMILIES].forEach((metric, f) => {
    const parts = chunks.map((c) => c.families[f] ?? EMPTY).filter((b) => b.length > 0);
    if (parts.length === 0) return;
    out.push(Buffer.from(familyHeader(metric)), ...parts);
  });
  return out;
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
  let cached: { wallets: WalletsSnapshot | null; watchlist: readonly WatchedWallet[]; maxAge: number; testnet: boolean; validUntil: number; text: readonly Buffer[] } | null = null;
  return {
    render(snapshot: Snapshot, now: number): readonly Buffer[] {
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
