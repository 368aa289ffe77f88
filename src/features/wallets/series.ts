import type { WatchedWallet } from '../../domain/config.js';
import { isFresh, staleFrom } from '../../snapshot/freshness.js';
import { sameFriendly, type HeldBook } from '../../accounts/address-book.js';
import type { WalletRecord } from '../../accounts/types.js';
import type { WalletsSnapshot } from './types.js';
import { oneRenderAtATime } from '../../metrics/one-render-at-a-time.js';
import { compressSmall, createCompressor, type Compressor, type GzipPart } from '../../metrics/gzip-members.js';
import { createLineWriter, type LineWriter } from '../../metrics/line-writer.js';
import type { MetricFamily } from '../../metrics/catalogue.js';
import { familyHeader } from '../../metrics/text-format.js';
import { ABSENT, UNKNOWN, WALLET_FAMILIES, type LineInput, type WalletData, writeBaseLabels } from './series-lines.js';

/** Wallets per cached block of output. */
const CHUNK_WALLETS = 1000;

/**
 * One block of watched wallets, rendered and compressed: per family of WALLET_FAMILIES,
 * the lines of these wallets as a gzip member. Only the members are kept, with what the
 * lines were written from (three arrays, no object per wallet): at 100,000 wallets the
 * text is about 100 MB and its members a quarter of that, and a block's text, its
 * wallets' encoded label sets included, is dropped as soon as it is compressed. The block
 * is kept whole while every wallet in it, its state object and its address-book name are
 * the same as when it was rendered; when some changed, each family's part is kept if its
 * lines would come out the same (a balance change re-renders the balance, seqno and lt
 * lines of the block, not its status or info).
 */
interface Chunk {
  readonly wallets: readonly WatchedWallet[];
  readonly data: readonly WalletData[];
  readonly books: readonly (HeldBook | null)[];
  readonly testnet: boolean;
  readonly families: readonly GzipPart[];
}

/** Caches shared across renders: encoded blocks of output, and the writers they are rendered with. */
export interface WalletSeriesCaches {
  /** The lines of the block being rendered. */
  readonly writer: LineWriter;
  /** The label sets of the block being rendered. */
  readonly labels: LineWriter;
  chunks: Chunk[];
  /** Compression in the thread pool, bounded with the rest of /metrics' (gzip-members.ts). */
  readonly compressor: Compressor;
}

export function createWalletSeriesCaches(compressor: Compressor = createCompressor()): WalletSeriesCaches {
  return { writer: createLineWriter(), labels: createLineWriter(64 * 1024), chunks: [], compressor };
}

/**
 * Each wallet's base label set (`address="…",name="…",…`), escaped and encoded once for
 * all the block's families: views of `out`, good until it is cleared. Writing them again
 * at each render costs far less than compressing the block, and keeping them cost two
 * hundred bytes a wallet for as long as it is watched.
 */
function encodedLabels(wallets: readonly WatchedWallet[], out: LineWriter): Buffer[] {
  const ends = wallets.map((wallet) => {
    writeBaseLabels(out, wallet);
    return out.size();
  });
  const block = out.written();
  return ends.map((end, i) => block.subarray(ends[i - 1] ?? 0, end));
}

/** What wallet i of a block was (or is to be) written from; `base` only when it is to be written. */
function inputOf(block: Pick<Chunk, 'wallets' | 'data' | 'books' | 'testnet'>, i: number, base: Buffer): LineInput {
  return { wallet: block.wallets[i] as WatchedWallet, base, data: block.data[i] ?? ABSENT, addressBook: block.books[i] ?? null, testnet: block.testnet };
}

const NO_BYTES = Buffer.alloc(0);

async function renderChunk(block: Omit<Chunk, 'families'>, previous: Chunk | undefined, caches: WalletSeriesCaches): Promise<Chunk> {
  const { wallets, testnet } = block;
  // Parts of the previous block can be kept only for the very same wallets.
  const comparable =
    previous !== undefined &&
    previous.testnet === testnet &&
    previous.wallets.length === wallets.length &&
    wallets.every((wallet, i) => previous.wallets[i] === wallet);
  const before = comparable ? previous : undefined;
  // What each wallet was and is written from, made once for all families' comparisons.
  const compared =
    before === undefined ? undefined : { was: wallets.map((_, i) => inputOf(before, i, NO_BYTES)), is: wallets.map((_, i) => inputOf(block, i, NO_BYTES)) };
  const keptPart = (f: number): GzipPart | undefined => {
    const kept = before?.families[f];
    if (compared === undefined || kept === undefined) return undefined;
    const family = WALLET_FAMILIES[f] as (typeof WALLET_FAMILIES)[number];
    for (let i = 0; i < wallets.length; i += 1) if (!family.same(compared.was[i] as LineInput, compared.is[i] as LineInput)) return undefined;
    return kept;
  };
  const kept = WALLET_FAMILIES.map((_, f) => keptPart(f));
  // Every family's new lines go into the writer's one buffer, compressed from there: no
  // text buffer per block, and nothing written until all are compressed.
  const out = caches.writer;
  try {
    const bases = kept.every((part) => part !== undefined) ? [] : encodedLabels(wallets, caches.labels);
    const inputs = wallets.map((_, i) => inputOf(block, i, bases[i] ?? NO_BYTES));
    const spans = WALLET_FAMILIES.map((family, f): GzipPart | [number, number] => {
      const part = kept[f];
      if (part !== undefined) return part;
      const start = out.size();
      for (const input of inputs) family.write(out, input);
      return [start, out.size()];
    });
    const text = out.written();
    const families = await Promise.all(
      spans.map((span) => (Array.isArray(span) ? caches.compressor.part(text.subarray(span[0], span[1])) : Promise.resolve(span))),
    );
    return { ...block, families };
  } finally {
    out.clear();
    caches.labels.clear();
  }
}

/**
 * The per-wallet series of one snapshot, in the text format, as gzip members (family
 * headers included) in the order of the text. Pure (the caches only hold what the same
 * inputs would produce again); one render at a time per caches. Wallets whose data is older
 * than maxAgeSeconds have no data series; those unknown to the upstream have only
 * `ton_wallet_status{status="unknown"}`.
 */
export async function renderWalletSeries(options: {
  wallets: WalletsSnapshot | null;
  watchlist: readonly WatchedWallet[];
  now: number;
  maxAgeSeconds: number;
  testnet: boolean;
  caches?: WalletSeriesCaches;
}): Promise<GzipPart[]> {
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
    const books = records.map((r) => r?.addressBook ?? null);
    const previous = caches.chunks[chunks.length];
    const unchanged =
      previous !== undefined &&
      previous.testnet === testnet &&
      previous.wallets.length === wallets.length &&
      wallets.every((w, i) => previous.wallets[i] === w && previous.data[i] === data[i] && sameFriendly(previous.books[i] ?? null, books[i] ?? null, w.raw));
    // One block rendered and compressed before the next: its text is dropped before the next one's is written.
    chunks.push(unchanged ? previous : await renderChunk({ wallets, data, books, testnet }, previous, caches));
  }
  caches.chunks = chunks;
  const out: GzipPart[] = [];
  WALLET_FAMILIES.forEach(({ family }, f) => {
    const parts = chunks.map((c) => c.families[f]).filter((part): part is GzipPart => part !== undefined && part.length > 0);
    if (parts.length === 0) return;
    out.push(headerOf(family), ...parts);
  });
  return out;
}

/** Each family's HELP and TYPE lines, compressed once. */
const HEADERS = new Map<MetricFamily, GzipPart>();
function headerOf(family: MetricFamily): GzipPart {
  let header = HEADERS.get(family);
  if (header === undefined) {
    header = compressSmall(Buffer.from(familyHeader(family)));
    HEADERS.set(family, header);
  }
  return header;
}

/**
 * Looks records up in watchlist order. The snapshot is kept in watchlist order (mostly:
 * types.ts), so this walks it alongside instead of hashing every address; a wallet out of
 * step is looked up by key.
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

/** Renders the wallets' series, as gzip members; the same array (by identity) as long as nothing changed. */
export interface WalletSeriesRenderer {
  render(wallets: WalletsSnapshot | null, now: number): Promise<readonly GzipPart[]>;
}

/**
 * Renders the wallet series once per (snapshot, watchlist) and again only when a wallet's
 * data turns stale, never per scrape. Renders run one after the other: scrapes that come
 * while one runs wait for it, and then find its result.
 */
export function createWalletSeriesRenderer(settings: {
  watchlist: () => readonly WatchedWallet[];
  maxAgeSeconds: () => number;
  testnet: () => boolean;
  /** Shared with the exposition's own compressions (default: one of its own). */
  compressor?: Compressor;
}): WalletSeriesRenderer {
  const caches = createWalletSeriesCaches(settings.compressor);
  let cached: {
    wallets: WalletsSnapshot | null;
    watchlist: readonly WatchedWallet[];
    maxAge: number;
    testnet: boolean;
    validUntil: number;
    parts: readonly GzipPart[];
  } | null = null;
  const current = (wallets: WalletsSnapshot | null, now: number): readonly GzipPart[] | null =>
    cached !== null &&
    cached.wallets === wallets &&
    cached.watchlist === settings.watchlist() &&
    cached.maxAge === settings.maxAgeSeconds() &&
    cached.testnet === settings.testnet() &&
    now < cached.validUntil
      ? cached.parts
      : null;
  const render = async (wallets: WalletsSnapshot | null, now: number): Promise<readonly GzipPart[]> => {
    const watchlist = settings.watchlist();
    const maxAge = settings.maxAgeSeconds();
    const testnet = settings.testnet();
    const parts = await renderWalletSeries({ wallets, watchlist, now, maxAgeSeconds: maxAge, testnet, caches });
    // The text stays right until the oldest fresh record turns stale.
    let validUntil = Infinity;
    for (const record of wallets?.wallets.values() ?? []) {
      const staleAt = staleFrom(record.fetchedAt, maxAge);
      if (staleAt > now && staleAt < validUntil) validUntil = staleAt;
    }
    cached = { wallets, watchlist, maxAge, testnet, validUntil, parts };
    return parts;
  };
  return { render: oneRenderAtATime(current, render) };
}
