import type { WatchedWallet } from '../config/watchlist.js';
import { addressBookEntry } from '../snapshot/address-book.js';
import { isFresh } from '../snapshot/store.js';
import type { ServedWalletState, Snapshot, WalletRecord, WalletsSnapshot } from '../snapshot/types.js';
import type { WalletSeriesRenderer } from './exposition.js';
import { CHAIN_METRICS, type MetricFamily } from './registry.js';
import { createLineWriter, type LineWriter } from './line-writer.js';
import { escapeLabelValue, familyHeader } from './text-format.js';

const ZEROS = Array.from({ length: 10 }, (_, n) => '0'.repeat(n));

/** Nanotons (decimal string) → TON as an exact decimal: "1500000000" → "1.5". */
export function writeTons(out: LineWriter, nanotons: string): void {
  // Hot path (once per wallet per poll): index arithmetic, no intermediate strings.
  const length = nanotons.length;
  let start = 0;
  while (start < length - 1 && nanotons.charCodeAt(start) === 48) start += 1;
  let end = length;
  if (length - start <= 9) {
    if (length - start === 1 && nanotons.charCodeAt(start) === 48) {
      out.text('0');
      return;
    }
    while (nanotons.charCodeAt(end - 1) === 48) end -= 1;
    out.text('0.');
    out.text(ZEROS[9 - (length - start)] ?? '');
    out.textRange(nanotons, start, end);
    return;
  }
  const point = length - 9;
  while (end > point && nanotons.charCodeAt(end - 1) === 48) end -= 1;
  out.textRange(nanotons, start, point);
  if (end > point) {
    out.text('.');
    out.textRange(nanotons, point, end);
  }
}

/** `address="…",name="…"` plus the entry's own labels (sorted), escaped. */
function baseLabels(wallet: WatchedWallet): string {
  const own = Object.keys(wallet.labels)
    .sort()
    .map((k) => `,${k}="${escapeLabelValue(wallet.labels[k] ?? '')}"`)
    .join('');
  return `address="${wallet.raw}",name="${escapeLabelValue(wallet.name)}"${own}`;
}

/** Marks a wallet with no exported data (no record, or stale). */
const ABSENT = Symbol('absent');
/** Marks a wallet the upstream does not know. */
const UNKNOWN = Symbol('unknown');

type WalletData = ServedWalletState | typeof ABSENT | typeof UNKNOWN;

/** What one family's lines are written from, for one wallet. */
interface LineInput {
  readonly wallet: WatchedWallet;
  /** The wallet's base label pairs, escaped and encoded: `address="…",name="…",…`. */
  readonly base: Buffer;
  readonly data: WalletData;
  readonly record: WalletRecord | undefined;
  readonly testnet: boolean;
}

/** A family and how one wallet's lines of it are written (nothing when it has none). */
interface FamilyWriter {
  readonly family: MetricFamily;
  write(out: LineWriter, input: LineInput): void;
}

/** `name{` of every family, encoded once. */
const OPENINGS = new Map(Object.values(CHAIN_METRICS).map((family) => [family, Buffer.from(`${family.name}{`)]));

/** Writes `name{base` ; the caller finishes the label set and the value. */
function open(out: LineWriter, family: MetricFamily, base: Buffer): void {
  out.bytes(OPENINGS.get(family) ?? Buffer.from(`${family.name}{`));
  out.bytes(base);
}

/** In output order: min balance (config, shown even without data) first. */
const FAMILIES: readonly FamilyWriter[] = [
  {
    family: CHAIN_METRICS.walletMinBalanceTons,
    write(out, { wallet, base }) {
      if (wallet.minBalanceTons === undefined) return;
      open(out, this.family, base);
      out.text('} ');
      out.integer(wallet.minBalanceTons);
      out.text('\n');
    },
  },
  {
    family: CHAIN_METRICS.walletStatus,
    write(out, { base, data }) {
      if (data === ABSENT) return;
      open(out, this.family, base);
      out.text(',status="');
      out.repeatedLabelValue(data === UNKNOWN ? 'unknown' : data.status);
      out.text('"} 1\n');
    },
  },
  {
    family: CHAIN_METRICS.walletBalanceTons,
    write(out, { base, data }) {
      if (typeof data === 'symbol' || data.balance === null) return;
      open(out, this.family, base);
      out.text('} ');
      writeTons(out, data.balance);
      out.text('\n');
    },
  },
  {
    family: CHAIN_METRICS.walletSeqno,
    write(out, { base, data }) {
      if (typeof data === 'symbol' || data.seqno === null) return;
      open(out, this.family, base);
      out.text('} ');
      out.integer(data.seqno);
      out.text('\n');
    },
  },
  {
    family: CHAIN_METRICS.walletLastTransactionLt,
    write(out, { base, data }) {
      if (typeof data === 'symbol' || data.last_transaction_lt === null) return;
      open(out, this.family, base);
      out.text('} ');
      out.text(data.last_transaction_lt);
      out.text('\n');
    },
  },
  {
    family: CHAIN_METRICS.walletInfo,
    write(out, { wallet, base, data, record, testnet }) {
      if (typeof data === 'symbol') return;
      open(out, this.family, base);
      out.text(',user_friendly="');
      out.labelValue(addressBookEntry(record, wallet.address, testnet).user_friendly ?? '');
      out.text('",wallet_type="');
      out.repeatedLabelValue(data.wallet_type ?? '');
      out.text('",wallet_id="');
      if (data.wallet_id !== null) out.integer(data.wallet_id);
      out.text('"} 1\n');
    },
  },
  {
    family: CHAIN_METRICS.walletExtraCurrencyBalance,
    write(out, { base, data }) {
      if (typeof data === 'symbol') return;
      for (const currency in data.extra_currencies) {
        open(out, this.family, base);
        out.text(',currency="');
        out.labelValue(currency);
        out.text('"} ');
        out.text(data.extra_currencies[currency] ?? '');
        out.text('\n');
      }
    },
  },
];

/** Wallets per cached block of output. */
const CHUNK_WALLETS = 1000;

/**
 * One block of watched wallets, rendered and encoded: per family of FAMILIES, the lines
 * of these wallets. Reused while every wallet in the block, its state object and its
 * address-book name are the same as when it was rendered.
 */
interface Chunk {
  readonly wallets: readonly WatchedWallet[];
  readonly data: readonly WalletData[];
  readonly friendly: readonly (string | null | undefined)[];
  readonly testnet: boolean;
  readonly families: readonly Buffer[];
}

/** Caches shared across renders: encoded labels per watched wallet, encoded blocks of output. */
export interface WalletSeriesCaches {
  readonly labels: WeakMap<WatchedWallet, Buffer>;
  readonly writer: LineWriter;
  chunks: Chunk[];
}

export function createWalletSeriesCaches(): WalletSeriesCaches {
  return { labels: new WeakMap(), writer: createLineWriter(), chunks: [] };
}

function renderChunk(wallets: readonly WatchedWallet[], records: readonly (WalletRecord | undefined)[], data: readonly WalletData[], testnet: boolean, caches: WalletSeriesCaches): Buffer[] {
  const inputs: LineInput[] = wallets.map((wallet, i) => {
    let base = caches.labels.get(wallet);
    if (base === undefined) {
      base = Buffer.from(baseLabels(wallet));
      caches.labels.set(wallet, base);
    }
    return { wallet, base, data: data[i] ?? ABSENT, record: records[i], testnet };
  });
  const out = caches.writer;
  return FAMILIES.map((writer) => {
    for (const input of inputs) writer.write(out, input);
    return out.take();
  });
}

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
  const recordOf = createRecordLookup(options.wallets?.wallets);
  for (let start = 0; start < watchlist.length; start += CHUNK_WALLETS) {
    const wallets = watchlist.slice(start, start + CHUNK_WALLETS);
    const records = wallets.map((w) => {
      const record = recordOf(w.raw);
      return record && isFresh(record.fetchedAt, options.now, options.maxAgeSeconds) ? record : undefined;
    });
    const data = records.map((r): WalletData => (r === undefined ? ABSENT : (r.state ?? UNKNOWN)));
    const friendly = records.map((r) => r?.addressBook?.user_friendly);
    const previous = caches.chunks[chunks.length];
    const same =
      previous !== undefined &&
      previous.testnet === testnet &&
      previous.wallets.length === wallets.length &&
      wallets.every((w, i) => previous.wallets[i] === w && previous.data[i] === data[i] && previous.friendly[i] === friendly[i]);
    chunks.push(same ? previous : { wallets, data, friendly, testnet, families: renderChunk(wallets, records, data, testnet, caches) });
  }
  caches.chunks = chunks;
  const out: Buffer[] = [];
  FAMILIES.forEach(({ family }, f) => {
    const parts = chunks.map((c) => c.families[f] ?? EMPTY).filter((b) => b.length > 0);
    if (parts.length === 0) return;
    out.push(Buffer.from(familyHeader(family)), ...parts);
  });
  return out;
}

const EMPTY = Buffer.alloc(0);

/**
 * Looks records up in watchlist order. The snapshot is kept in watchlist order, so this
 * walks it alongside instead of hashing every address; a wallet out of step (the
 * watchlist changed since the poll) is looked up by key.
 */
function createRecordLookup(records: ReadonlyMap<string, WalletRecord> | undefined): (raw: string) => WalletRecord | undefined {
  if (records === undefined) return () => undefined;
  const walk = records.entries();
  let next = walk.next();
  return (raw) => {
    if (!next.done && next.value[0] === raw) {
      const record = next.value[1];
      next = walk.next();
      return record;
    }
    return records.get(raw);
  };
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
