import type { WatchedWallet } from '../domain/config.js';
import { isFresh, staleFrom } from '../snapshot/freshness.js';
import type { AddressBookEntry } from '../domain/wallet-state.js';
import type { Snapshot, WalletRecord, WalletsSnapshot } from '../snapshot/types.js';
import type { WalletSeriesRenderer } from './exposition.js';
import { compressPart, compressSmall, type GzipPart } from './gzip-members.js';
import { createLineWriter, type LineWriter } from './line-writer.js';
import type { MetricFamily } from './registry.js';
import { familyHeader } from './text-format.js';
import { ABSENT, UNKNOWN, WALLET_FAMILIES, type LineInput, type WalletData, writeBaseLabels } from './wallet-lines.js';

/** Wallets per cached block of output. */
const CHUNK_WALLETS = 1000;

/**
 * One block of watched wallets, rendered and compressed: per family of WALLET_FAMILIES,
 * the lines of these wallets as a gzip member. Only the member is kept: at 100,000 wallets
 * the text is about 100 MB and its members a quarter of that, and a block's text is
 * dropped as soon as it is compressed, so all of it is never held at once. The block is kept whole while every wallet in it, its state
 * object and its address-book name are the same as when it was rendered; when some
 * changed, each family's part is kept if its lines would come out the same (a balance
 * change re-renders the balance, seqno and lt lines of the block, not its status or info).
 */
interface Chunk {
  readonly inputs: readonly LineInput[];
  readonly testnet: boolean;
  readonly families: readonly GzipPart[];
}

/** Caches shared across renders: encoded blocks of output, with their wallets' encoded labels. */
export interface WalletSeriesCaches {
  readonly writer: LineWriter;
  chunks: Chunk[];
}

export function createWalletSeriesCaches(): WalletSeriesCaches {
  return { writer: createLineWriter(), chunks: [] };
}

/**
 * Each wallet's base label set, encoded: taken from the previous block when the same
 * wallet sat at the same place (the watchlist did not change), else written now, all of
 * the block's new ones into one buffer. The writer holds nothing when this is called:
 * every family's lines are taken as soon as they are written.
 */
function encodedLabels(wallets: readonly WatchedWallet[], previous: Chunk | undefined, out: LineWriter): Buffer[] {
  const bases = new Array<Buffer>(wallets.length);
  // Where each new label set ends in the writer; -1 for a kept one.
  const ends: number[] = [];
  let fresh = 0;
  wallets.forEach((wallet, i) => {
    const before = previous?.inputs[i];
    if (before?.wallet === wallet) {
      bases[i] = before.base;
      ends.push(-1);
      return;
    }
    writeBaseLabels(out, wallet);
    ends.push(out.size());
    fresh += 1;
  });
  if (fresh === 0) return bases;
  const block = out.take();
  let start = 0;
  ends.forEach((end, i) => {
    if (end < 0) return;
    bases[i] = block.subarray(start, end);
    start = end;
  });
  return bases;
}

async function renderChunk(
  wallets: readonly WatchedWallet[],
  books: readonly (AddressBookEntry | null)[],
  data: readonly WalletData[],
  testnet: boolean,
  previous: Chunk | undefined,
  caches: WalletSeriesCaches,
): Promise<Chunk> {
  const bases = encodedLabels(wallets, previous, caches.writer);
  const inputs: LineInput[] = wallets.map((wallet, i) => ({
    wallet,
    base: bases[i] as Buffer,
    data: data[i] ?? ABSENT,
    addressBook: books[i] ?? null,
    testnet,
  }));
  // Parts of the previous block can be kept only for the very same wallets.
  const comparable =
    previous !== undefined &&
    previous.testnet === testnet &&
    previous.inputs.length === inputs.length &&
    inputs.every((input, i) => previous.inputs[i]?.wallet === input.wallet);
  // Every family's new lines go into the writer's one buffer, compressed from there: no
  // text buffer per block, and nothing written until all are compressed.
  const out = caches.writer;
  const spans = WALLET_FAMILIES.map((family, f): GzipPart | [number, number] => {
    const kept = comparable ? previous.families[f] : undefined;
    if (kept !== undefined && inputs.every((input, i) => family.same(previous?.inputs[i] ?? input, input))) return kept;
    const start = out.size();
    for (const input of inputs) family.write(out, input);
    return [start, out.size()];
  });
  const text = out.written();
  try {
    const families = await Promise.all(spans.map((span) => (Array.isArray(span) ? compressPart(text.subarray(span[0], span[1])) : Promise.resolve(span))));
    return { inputs, testnet, families };
  } finally {
    out.clear();
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
      previous.inputs.length === wallets.length &&
      wallets.every((w, i) => {
        const before = previous.inputs[i];
        return before !== undefined && before.wallet === w && before.data === data[i] && before.addressBook?.user_friendly === books[i]?.user_friendly;
      });
    // One block rendered and compressed before the next: its text is dropped before the next one's is written.
    chunks.push(unchanged ? previous : await renderChunk(wallets, books, data, testnet, previous, caches));
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
 * data turns stale, never per scrape. Renders run one after the other: scrapes that come
 * while one runs wait for it, and then find its result.
 */
export function createWalletSeriesRenderer(settings: {
  watchlist: () => readonly WatchedWallet[];
  maxAgeSeconds: () => number;
  testnet: () => boolean;
}): WalletSeriesRenderer {
  const caches = createWalletSeriesCaches();
  let cached: {
    wallets: WalletsSnapshot | null;
    watchlist: readonly WatchedWallet[];
    maxAge: number;
    testnet: boolean;
    validUntil: number;
    parts: readonly GzipPart[];
  } | null = null;
  let running: Promise<unknown> = Promise.resolve();
  const current = (snapshot: Snapshot, now: number): readonly GzipPart[] | null =>
    cached !== null &&
    cached.wallets === snapshot.wallets &&
    cached.watchlist === settings.watchlist() &&
    cached.maxAge === settings.maxAgeSeconds() &&
    cached.testnet === settings.testnet() &&
    now < cached.validUntil
      ? cached.parts
      : null;
  const render = async (snapshot: Snapshot, now: number): Promise<readonly GzipPart[]> => {
    const watchlist = settings.watchlist();
    const maxAge = settings.maxAgeSeconds();
    const testnet = settings.testnet();
    const parts = await renderWalletSeries({ wallets: snapshot.wallets, watchlist, now, maxAgeSeconds: maxAge, testnet, caches });
    // The text stays right until the oldest fresh record turns stale.
    let validUntil = Infinity;
    for (const record of snapshot.wallets?.wallets.values() ?? []) {
      const staleAt = staleFrom(record.fetchedAt, maxAge);
      if (staleAt > now && staleAt < validUntil) validUntil = staleAt;
    }
    cached = { wallets: snapshot.wallets, watchlist, maxAge, testnet, validUntil, parts };
    return parts;
  };
  return {
    render(snapshot, now) {
      const parts = current(snapshot, now);
      if (parts !== null) return Promise.resolve(parts);
      const next = running.then(() => current(snapshot, now) ?? render(snapshot, now));
      running = next.catch(() => undefined);
      return next;
    },
  };
}
