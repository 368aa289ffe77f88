import { isCanonicalRaw, parseAddress } from '../ton/address.js';
import { perObject } from '../domain/per-object.js';
import type { ConfigProblem } from './problems.js';
import type { WatchedWallet, WatchlistEntry } from '../domain/config.js';

/** A line of a watchlist file. */
export interface FileLine {
  readonly file: string;
  readonly line: number;
}

/** An entry of the config's `watchlist:` list, with its config path (`watchlist.3`). */
export interface ListedSource {
  readonly entry: WatchlistEntry;
  readonly origin: string;
}

/** The features' values for a watched wallet (config/piece.ts: watchlistKeys), by key; frozen. */
export type WalletExtras = Readonly<Record<string, unknown>>;

const NO_EXTRAS: WalletExtras = Object.freeze({});

/**
 * A watchlist file, parsed: its wallets already made (and frozen) in file order, with the
 * line each came from and whether the line named it. A file may hold 100,000 lines: one
 * object per line, not an entry, an origin and a source each.
 */
export interface FileSource {
  readonly file: string;
  readonly wallets: readonly WatchedWallet[];
  readonly lines: ArrayLike<number>;
  /** 1 where the line gave a name (`address,name`), 0 where the name is the address. */
  readonly named: Uint8Array;
}

export type WatchlistSource = ListedSource | FileSource;

/** `watchlist.3`, or `wallets.txt:12`. */
export function originText(origin: string | FileLine): string {
  return typeof origin === 'string' ? origin : `${origin.file}:${origin.line}`;
}

/** The labels of an entry that has none (every line of a watchlist file): one frozen object. */
const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});

/** A byte of the file that ends or starts something: the line, its comment, its name. */
const NEWLINE = 0x0a;
const HASH = 0x23;
const COMMA = 0x2c;

/**
 * Parses a watchlist file: one address per line, optionally `,name`; `#` starts a
 * comment; blank lines are skipped. Invalid lines are problems located by file and line.
 * Read from the file's bytes, a line at a time: each line becomes a string of its own, so
 * what is kept (a name, an address) holds at most its line, never the file's text (V8
 * makes a substring of 13 characters or more a view of the string it was cut from); and
 * nothing is split, matched by a regex or copied again. A file may hold 100,000 lines,
 * read at every start and reload.
 */
export function parseWatchlistFile(file: string, content: string | Uint8Array, problems: ConfigProblem[], extras: WalletExtras = NO_EXTRAS): FileSource {
  const fileExtras = extrasOf(extras);
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  const wallets: WatchedWallet[] = [];
  const lines: number[] = [];
  const named: number[] = [];
  let line = 0;
  // The next '#' and ',' at or after the line's start, found again only once passed (one scan of the bytes for each).
  let hash = -2;
  let comma = -2;
  for (let start = 0; start <= bytes.length;) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end === -1) end = bytes.length;
    line += 1;
    if (hash !== -1 && hash < start) hash = bytes.indexOf(HASH, start);
    if (comma !== -1 && comma < start) comma = bytes.indexOf(COMMA, start);
    const stop = hash !== -1 && hash < end ? hash : end;
    const hasName = comma !== -1 && comma < stop;
    // trim() also drops the \r of a CRLF line end.
    const address = bytes.toString('utf8', start, hasName ? comma : stop).trim();
    const name = hasName ? bytes.toString('utf8', comma + 1, stop).trim() : '';
    start = end + 1;
    if (address === '' && !hasName) continue;
    // Files mostly hold the canonical raw form: it is its own key, and no result objects are made for it.
    let raw = address;
    if (!isCanonicalRaw(address)) {
      const parsed = parseAddress(address);
      if (!parsed.ok) {
        problems.push({ path: `${file}:${line}`, message: `invalid address "${address}": ${parsed.reason}` });
        continue;
      }
      raw = parsed.value.raw;
    }
    wallets.push(watchedWallet(raw, name !== '' ? name : raw === address ? raw : address, NO_LABELS, undefined, fileExtras));
    lines.push(line);
    named.push(name === '' ? 0 : 1);
  }
  return { file, wallets, lines: Uint32Array.from(lines), named: Uint8Array.from(named) };
}

/** A watched wallet, frozen; its labels and extras must be frozen already. Every one is made here, so all of one watchlist share one shape. */
function watchedWallet(
  raw: string,
  name: string,
  labels: Readonly<Record<string, string>>,
  minBalanceTons: number | undefined,
  extras: WalletExtras,
): WatchedWallet {
  return Object.freeze({ raw, name, labels, minBalanceTons, ...extras });
}

/**
 * The features' values as a wallet keeps them: lists without duplicates (none when empty),
 * records and lists frozen; keys without a value left out. The same object when nothing
 * is given.
 */
export function extrasOf(values: Readonly<Record<string, unknown>>): WalletExtras {
  const kept: Record<string, unknown> = {};
  let any = false;
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    kept[key] = Array.isArray(value) ? Object.freeze([...new Set(value)]) : typeof value === 'object' && value !== null ? Object.freeze({ ...value }) : value;
    any = true;
  }
  return any ? Object.freeze(kept) : NO_EXTRAS;
}

/** Two wallets' values of the features' keys as one: lists united, records joined (the first's keys winning), other values the first's. */
function unitedExtras(first: WalletExtras, other: WalletExtras): WalletExtras {
  if (other === NO_EXTRAS) return first;
  const united: Record<string, unknown> = { ...first };
  for (const [key, value] of Object.entries(other)) {
    const held = first[key];
    if (held === undefined) united[key] = value;
    else if (Array.isArray(held) && Array.isArray(value)) {
      const [heldItems, items] = [held as readonly unknown[], value as readonly unknown[]];
      united[key] = items.every((item) => heldItems.includes(item)) ? held : Object.freeze([...new Set([...heldItems, ...items])]);
    } else if (typeof held === 'object' && held !== null && typeof value === 'object' && value !== null) united[key] = Object.freeze({ ...value, ...held });
  }
  return Object.freeze(united);
}

/** The features' values of a watched wallet, as it was made. */
const extrasOfWallet = (wallet: WatchedWallet): WalletExtras => {
  const { raw: _raw, name: _name, labels: _labels, minBalanceTons: _min, ...extras } = wallet as WatchedWallet & Record<string, unknown>;
  return extras;
};

/**
 * Merges the watchlist sources into one list keyed by canonical address, in first-seen
 * order. A duplicate (the same account in any form) is merged into the first entry: the
 * first name and threshold win, labels are united; each merge is reported as a warning.
 * Each watched wallet and its labels are frozen as they are made; a file's wallets are
 * taken as they are unless merged.
 */
export function buildWatchlist(sources: readonly WatchlistSource[], warnings: string[]): WatchedWallet[] {
  let total = 0;
  for (const source of sources) total += 'entry' in source ? 1 : source.wallets.length;
  /** Index into `wallets` (and `from`, `line`) of each canonical address. */
  const byRaw = new Map<string, number>();
  // Sized once: a file may bring 100,000 wallets, and arrays grown a push at a time are copied as they grow.
  const wallets = new Array<WatchedWallet>(total);
  /** Where each wallet was first seen: the index of its source, and of its line in a file source. */
  const from = new Int32Array(total);
  const line = new Int32Array(total);
  /** Whether the entry kept for a wallet has a name of its own, where a merge decided it; else its first source says. */
  const namedByMerge = new Map<number, boolean>();
  let count = 0;
  const sourceNamed = (at: number): boolean => {
    const source = sources[from[at] as number] as WatchlistSource;
    return 'entry' in source ? source.entry.name !== undefined : source.named[line[at] as number] === 1;
  };
  const originAt = (sourceIndex: number, index: number): string => {
    const source = sources[sourceIndex] as WatchlistSource;
    return 'entry' in source ? source.origin : `${source.file}:${source.lines[index] ?? 0}`;
  };
  const add = (wallet: WatchedWallet, hasName: boolean, sourceIndex: number, index: number): void => {
    const at = byRaw.get(wallet.raw);
    if (at === undefined) {
      byRaw.set(wallet.raw, count);
      wallets[count] = wallet;
      from[count] = sourceIndex;
      line[count] = index;
      count += 1;
      return;
    }
    warnings.push(`${originAt(sourceIndex, index)}: duplicate of ${originAt(from[at] as number, line[at] as number)} (${wallet.raw}); merged`);
    const kept = wallets[at] as WatchedWallet;
    const keptNamed = namedByMerge.get(at) ?? sourceNamed(at);
    const takeName = !keptNamed && hasName;
    if (takeName) namedByMerge.set(at, true);
    wallets[at] = watchedWallet(
      kept.raw,
      takeName ? wallet.name : kept.name,
      Object.freeze({ ...wallet.labels, ...kept.labels }),
      kept.minBalanceTons ?? wallet.minBalanceTons,
      unitedExtras(extrasOfWallet(kept), extrasOfWallet(wallet)),
    );
  };
  for (const [sourceIndex, source] of sources.entries()) {
    if ('entry' in source) {
      const { entry } = source;
      const parsed = parseAddress(entry.address);
      if (!parsed.ok) continue; // reported by the schema
      const { address, name, labels: written, minBalanceTons, ...values } = entry as WatchlistEntry & Record<string, unknown>;
      const labels = Object.isFrozen(written) ? written : Object.freeze({ ...written });
      add(watchedWallet(parsed.value.raw, name ?? address.trim(), labels, minBalanceTons, extrasOf(values)), name !== undefined, sourceIndex, 0);
    } else {
      const { wallets: fileWallets, named: fileNamed } = source;
      for (let i = 0; i < fileWallets.length; i += 1) add(fileWallets[i] as WatchedWallet, fileNamed[i] === 1, sourceIndex, i);
    }
  }
  wallets.length = count;
  watchlistKeys.keep(wallets, byRaw);
  return wallets;
}

/**
 * The watchlist's raw keys, each with its place in the list: the index buildWatchlist made
 * while merging, not built again (a set of 100,000 keys takes ~20 ms at start); built now
 * for a watchlist made elsewhere.
 */
export const watchlistKeys = perObject(
  (watchlist: readonly WatchedWallet[]): ReadonlyMap<string, number> => new Map(watchlist.map((wallet, i) => [wallet.raw, i])),
);
