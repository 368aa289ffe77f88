import { parseAddress, type ParsedAddress } from '../ton/address.js';
import type { ConfigProblem } from './problems.js';
import type { WatchedWallet, WatchlistEntry } from '../domain/config.js';

export interface WatchlistSource {
  readonly entry: WatchlistEntry;
  /** Where the entry came from, for messages: `watchlist.3` or `wallets.txt:12`. */
  readonly origin: string;
  /** The address already parsed (files), so it is not parsed twice. */
  readonly parsed?: ParsedAddress;
}

/**
 * Parses a watchlist file: one address per line, optionally `,name`; `#` starts a
 * comment; blank lines are skipped. Invalid lines are problems located by file and line.
 */
export function parseWatchlistFile(file: string, text: string, problems: ConfigProblem[]): WatchlistSource[] {
  const sources: WatchlistSource[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const content = (line.split('#', 1)[0] ?? '').trim();
    if (content === '') return;
    const comma = content.indexOf(',');
    const address = (comma === -1 ? content : content.slice(0, comma)).trim();
    const name = comma === -1 ? '' : content.slice(comma + 1).trim();
    const origin = `${file}:${index + 1}`;
    const parsed = parseAddress(address);
    if (!parsed.ok) {
      problems.push({ path: origin, message: `invalid address "${address}": ${parsed.reason}` });
      return;
    }
    sources.push({ origin, parsed: parsed.value, entry: { address, labels: {}, ...(name === '' ? {} : { name }) } });
  });
  return sources;
}

/**
 * Merges the watchlist sources into one list keyed by canonical address, in first-seen
 * order. A duplicate (the same account in any form) is merged into the first entry: the
 * first name and threshold win, labels are united; each merge is reported as a warning.
 */
export function buildWatchlist(sources: readonly WatchlistSource[], warnings: string[]): WatchedWallet[] {
  const byRaw = new Map<string, { wallet: WatchedWallet; origin: string; named: boolean }>();
  for (const { entry, origin, parsed: known } of sources) {
    const parsed = known ? { ok: true as const, value: known } : parseAddress(entry.address);
    if (!parsed.ok) continue; // reported by the schema or the file parser
    const { raw } = parsed.value;
    const existing = byRaw.get(raw);
    if (existing) {
      warnings.push(`${origin}: duplicate of ${existing.origin} (${raw}); merged`);
      const kept = existing.wallet;
      const takeName = !existing.named && entry.name !== undefined;
      existing.named ||= takeName;
      existing.wallet = {
        ...kept,
        name: takeName && entry.name !== undefined ? entry.name : kept.name,
        labels: { ...entry.labels, ...kept.labels },
        minBalanceTons: kept.minBalanceTons ?? entry.minBalanceTons,
      };
      continue;
    }
    byRaw.set(raw, {
      origin,
      named: entry.name !== undefined,
      wallet: { raw, name: entry.name ?? entry.address.trim(), labels: entry.labels, minBalanceTons: entry.minBalanceTons },
    });
  }
  return [...byRaw.values()].map((v) => v.wallet);
}
