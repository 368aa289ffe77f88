import { isCanonicalRaw, parseAddress } from '../ton/address.js';
import type { ConfigProblem } from './problems.js';
import type { WatchedWallet, WatchlistEntry } from '../domain/config.js';

/** A line of a watchlist file. */
export interface FileLine {
  readonly file: string;
  readonly line: number;
}

export interface WatchlistSource {
  readonly entry: WatchlistEntry;
  /**
   * Where the entry came from, for messages: a config path (`watchlist.3`) or a file line,
   * made into text (`wallets.txt:12`) only when a message needs it.
   */
  readonly origin: string | FileLine;
  /** The canonical key, already parsed (files), so the address is not parsed twice. */
  readonly raw?: string;
}

/** `watchlist.3`, or `wallets.txt:12`. */
export function originText(origin: string | FileLine): string {
  return typeof origin === 'string' ? origin : `${origin.file}:${origin.line}`;
}

/** The labels of an entry that has none (every line of a watchlist file): one frozen object. */
const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Parses a watchlist file: one address per line, optionally `,name`; `#` starts a
 * comment; blank lines are skipped. Invalid lines are problems located by file and line.
 * A loop over the text rather than split and regexes: a file may hold 100,000 lines, read
 * at every start and reload.
 */
export function parseWatchlistFile(file: string, text: string, problems: ConfigProblem[]): WatchlistSource[] {
  const sources: WatchlistSource[] = [];
  let line = 0;
  // The next '#' at or after the line's start, found again only once passed (one scan of the text in all).
  let hash = -2;
  for (let start = 0; start <= text.length;) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    line += 1;
    if (hash !== -1 && hash < start) hash = text.indexOf('#', start);
    // trim() also drops the \r of a CRLF line end.
    const content = text.slice(start, hash !== -1 && hash < end ? hash : end).trim();
    start = end + 1;
    if (content === '') continue;
    const comma = content.indexOf(',');
    const address = comma === -1 ? content : content.slice(0, comma).trim();
    const name = comma === -1 ? '' : content.slice(comma + 1).trim();
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
    sources.push({ origin: { file, line }, raw, entry: name === '' ? { address, labels: NO_LABELS } : { address, labels: NO_LABELS, name } });
  }
  return sources;
}

/**
 * Merges the watchlist sources into one list keyed by canonical address, in first-seen
 * order. A duplicate (the same account in any form) is merged into the first entry: the
 * first name and threshold win, labels are united; each merge is reported as a warning.
 * Each watched wallet and its labels are frozen as they are made.
 */
export function buildWatchlist(sources: readonly WatchlistSource[], warnings: string[]): WatchedWallet[] {
  /** Index into `wallets` (and `origins`, `named`) of each canonical address. */
  const byRaw = new Map<string, number>();
  const wallets: WatchedWallet[] = [];
  const origins: (string | FileLine)[] = [];
  const named: boolean[] = [];
  for (const { entry, origin, raw: known } of sources) {
    let raw = known;
    if (raw === undefined) {
      const parsed = parseAddress(entry.address);
      if (!parsed.ok) continue; // reported by the schema or the file parser
      raw = parsed.value.raw;
    }
    const at = byRaw.get(raw);
    if (at !== undefined) {
      warnings.push(`${originText(origin)}: duplicate of ${originText(origins[at] ?? '')} (${raw}); merged`);
      const kept = wallets[at] as WatchedWallet;
      const takeName = !named[at] && entry.name !== undefined;
      named[at] ||= takeName;
      wallets[at] = Object.freeze({
        ...kept,
        name: takeName && entry.name !== undefined ? entry.name : kept.name,
        labels: Object.freeze({ ...entry.labels, ...kept.labels }),
        minBalanceTons: kept.minBalanceTons ?? entry.minBalanceTons,
      });
      continue;
    }
    byRaw.set(raw, wallets.length);
    origins.push(origin);
    named.push(entry.name !== undefined);
    const labels = Object.isFrozen(entry.labels) ? entry.labels : Object.freeze({ ...entry.labels });
    wallets.push(Object.freeze({ raw, name: entry.name ?? entry.address.trim(), labels, minBalanceTons: entry.minBalanceTons }));
  }
  return wallets;
}
