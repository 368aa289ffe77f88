import type { WatchedWallet } from '../../domain/config.js';
import { addressBookEntry } from '../../accounts/address-book.js';
import { escapeHtml, thousands } from '../../serve/html.js';
import { ageSeconds, isFresh, staleFrom } from '../../snapshot/freshness.js';
import { parseAddress } from '../../ton/address.js';
import type { StatusSection, WalletCell, WalletColumns } from '../provisions.js';
import type { WalletsSnapshot } from './types.js';

/** Wallet rows per page. */
export const WALLET_PAGE_SIZE = 50;

/** Nanotons (decimal text) → TON, decimal text without trailing zeros. */
export function formatTons(nanotons: string): string {
  const negative = nanotons.startsWith('-');
  const digits = (negative ? nanotons.slice(1) : nanotons).padStart(10, '0');
  const whole = digits.slice(0, -9).replace(/^0+(?=\d)/, '');
  const fraction = digits.slice(-9).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

export interface WalletRow {
  readonly name: string;
  /** Raw uppercase form. */
  readonly address: string;
  readonly userFriendly: string;
  /** active | uninit | frozen | nonexist | unknown (the upstream does not know it) | no data (not fetched yet, or stale). */
  readonly status: string;
  /** Balance in TON, decimal text; null when unknown. */
  readonly balanceTons: string | null;
  readonly minBalanceTons: number | null;
  /** One cell per column of the other assets (WalletPage.jettons' order). */
  readonly jettons: readonly WalletCell[];
  /** Why it needs attention, or null. */
  readonly attention: 'below_threshold' | 'below_jetton_threshold' | 'not_active' | null;
}

/** A page of the wallets' table, as /api/status/wallets sends it. */
export interface WalletPage {
  /** The search text, '' for the default list (those needing attention first). */
  readonly query: string;
  readonly page: number;
  readonly pages: number;
  readonly total: number;
  /** The columns beside TON, by name (a jetton each). */
  readonly jettons: readonly string[];
  /** The order: '' (those needing attention first), `name`, `balance` or `jetton:<NAME>` (largest first). */
  readonly sort: string;
  readonly rows: readonly WalletRow[];
}

/** The wallets' part of /api/status. */
export interface WalletsStatus {
  readonly wallets: {
    readonly watched: number;
    readonly fetchedAt: number | null;
    readonly ageSeconds: number | null;
    /** How many need attention (below threshold or not active). */
    readonly attention: number;
  };
}

/** What the wallets' table reads. */
export interface WalletTableSources {
  readonly now: number;
  readonly snapshot: WalletsSnapshot | null;
  readonly watchlist: readonly WatchedWallet[];
  readonly maxAgeSeconds: number;
  readonly testnet: boolean;
  /** The other assets' columns (the features that provide them). */
  readonly columns: readonly WalletColumns[];
}

/**
 * The wallets' table: rows of the watchlist for one snapshot, config and columns, those
 * needing attention first; worked out again when one of them changes, or when the first
 * fresh value in it turns stale (rows show fresh data only).
 */
export function createWalletTable() {
  let ordered: { key: readonly unknown[]; validUntil: number; rows: WalletRow[]; attention: number } | null = null;

  function rowsOf(sources: WalletTableSources): { rows: WalletRow[]; attention: number } {
    const key = [sources.snapshot, sources.watchlist, sources.maxAgeSeconds, sources.testnet, ...sources.columns.flatMap((c) => c.version())];
    if (ordered !== null && ordered.key.length === key.length && ordered.key.every((part, i) => part === key[i]) && sources.now < ordered.validUntil) {
      return ordered;
    }
    const needing: WalletRow[] = [];
    const others: WalletRow[] = [];
    let validUntil = Math.min(...sources.columns.map((c) => c.validUntil(sources.now)), Infinity);
    for (const wallet of sources.watchlist) {
      const row = walletRow(wallet, sources);
      (row.attention === null ? others : needing).push(row);
      const record = sources.snapshot?.wallets.get(wallet.raw);
      if (record !== undefined && isFresh(record.fetchedAt, sources.now, sources.maxAgeSeconds))
        validUntil = Math.min(validUntil, staleFrom(record.fetchedAt, sources.maxAgeSeconds));
    }
    ordered = { key, validUntil, rows: [...needing, ...others], attention: needing.length };
    return ordered;
  }

  return {
    status(sources: WalletTableSources): WalletsStatus {
      const { snapshot, now } = sources;
      return {
        wallets: {
          watched: sources.watchlist.length,
          fetchedAt: snapshot?.fetchedAt ?? null,
          ageSeconds: snapshot ? ageSeconds(snapshot.fetchedAt, now) : null,
          attention: rowsOf(sources).attention,
        },
      };
    },
    page(sources: WalletTableSources, query: string, page: number, sort = ''): WalletPage {
      const { rows } = rowsOf(sources);
      const names = sources.columns.flatMap((c) => c.names());
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

/** A wallet page's sort keys: every row's value for `sort` (larger first for balances, names A to Z); null for the default order. */
function sortKey(sort: string, names: readonly string[]): ((row: WalletRow) => number | string) | null {
  if (sort === 'name') return (row) => row.name.toLowerCase();
  if (sort === 'balance') return (row) => (row.balanceTons === null ? Infinity : -Number(row.balanceTons));
  const column = sort.startsWith('jetton:') ? names.indexOf(sort.slice(7)) : -1;
  if (column === -1) return null;
  return (row) => {
    const balance = row.jettons[column]?.balance ?? null;
    return balance === null ? Infinity : -Number(balance);
  };
}

function walletRow(wallet: WatchedWallet, sources: WalletTableSources): WalletRow {
  const record = sources.snapshot?.wallets.get(wallet.raw);
  const fresh = record !== undefined && isFresh(record.fetchedAt, sources.now, sources.maxAgeSeconds);
  const state = fresh ? record.state : null;
  const status = !fresh ? 'no data' : state === null ? 'unknown' : state.status;
  const balance = state?.balance ?? null;
  const below = balance !== null && wallet.minBalanceTons !== undefined && BigInt(balance) < BigInt(Math.round(wallet.minBalanceTons * 1e9));
  const jettons = sources.columns.flatMap((c) => c.cells(wallet, sources.now));
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

/** The status page's wallets section over a table and what it reads. */
export function walletsSection(table: ReturnType<typeof createWalletTable>, sources: (now: number) => WalletTableSources): StatusSection {
  const pageOf = (params: URLSearchParams, now: number): WalletPage =>
    table.page(sources(now), params.get('q') ?? '', Math.max(1, Math.floor(Number(params.get('page') ?? '1')) || 1), params.get('sort') ?? '');
  return {
    id: 'wallets',
    title: 'Wallets',
    order: 30,
    anchor: 'wallets',
    model: (now) => table.status(sources(now)) as unknown as Readonly<Record<string, unknown>>,
    html: (model, params, now) => renderWallets(model as unknown as WalletsStatus, pageOf(params, now)),
    controls: (params) =>
      `<form id="wallet-search" class="search" role="search" method="get" action="/#wallets"><label for="wallet-query">Find a watched wallet by ` +
      `name or any address form</label>\n<input id="wallet-query" name="q" type="search" value="${escapeHtml(params.get('q') ?? '')}" ` +
      `autocomplete="off" spellcheck="false"><input type="hidden" name="refresh" value="${escapeHtml(params.get('refresh') ?? '5')}"><button ` +
      `type="submit">Search</button></form>`,
    summary: (model) => {
      const { wallets } = model as unknown as WalletsStatus;
      const text =
        wallets.watched === 0
          ? 'none watched'
          : `${thousands(wallets.watched)} watched, ${wallets.ageSeconds === null ? 'no data yet' : `${escapeHtml(wallets.ageSeconds.toFixed(1))} s old`}, ` +
            `<a href="#wallets">${thousands(wallets.attention)} need attention</a>`;
      return [[20, `Wallets: ${text}`]];
    },
  };
}

const ATTENTION: Record<NonNullable<WalletRow['attention']>, string> = {
  below_threshold: 'below threshold',
  below_jetton_threshold: 'below a jetton threshold',
  not_active: 'not active',
};

const cell = (c: WalletCell): string => {
  const title = c.min === null ? '' : ` title="minimum ${escapeHtml(c.min)}"`;
  return `<td class="num${c.below ? ' below' : ''}"${title}>${c.balance === null ? '–' : escapeHtml(c.balance)}</td>`;
};

const walletRowHtml = (r: WalletRow): string =>
  `<tr class="${r.attention === null ? '' : 'attention'}"><td>${escapeHtml(r.name)}</td><td><code ` +
  `title="${escapeHtml(r.address)}">${escapeHtml(r.userFriendly)}</code></td><td class="status-${escapeHtml(
    r.status.replace(/\s/g, '-'),
  )}">${escapeHtml(r.status)}</td><td class="num">${r.balanceTons === null ? '–' : escapeHtml(r.balanceTons)}</td><td ` +
  `class="num">${r.minBalanceTons === null ? '–' : escapeHtml(r.minBalanceTons)}</td>${r.jettons.map(cell).join('')}<td>${
    r.attention === null ? '' : ATTENTION[r.attention]
  }</td></tr>`;

/** The wallets' table as HTML: a page of it, with sortable headers and page links that work without the page's script. */
export function renderWallets(status: WalletsStatus, page: WalletPage): string {
  if (status.wallets.watched === 0) return '<p>No wallets on the watchlist.</p>';
  const link = (p: number, text: string) =>
    `<a href="/?q=${encodeURIComponent(page.query)}&amp;sort=${encodeURIComponent(page.sort)}&amp;page=${p}#wallets" data-page="${p}">${text}</a>`;
  const nav =
    page.pages > 1
      ? `<nav class="pages" aria-label="wallet pages">${page.page > 1 ? link(page.page - 1, '← previous') : ''} page ${page.page} ` +
        `of ${page.pages} ${page.page < page.pages ? link(page.page + 1, 'next →') : ''}</nav>`
      : '';
  const heading =
    page.query === '' ? `${thousands(page.total)} wallets, those needing attention first` : `${thousands(page.total)} match “${escapeHtml(page.query)}”`;
  // Sortable headers: links that work without the script (GET /?sort=), fetched in place with it.
  const sortable = (key: string, text: string): string => {
    const current = page.sort === key;
    const href = `/?q=${encodeURIComponent(page.query)}&amp;sort=${encodeURIComponent(current ? '' : key)}#wallets`;
    return `<th scope="col"${current ? ' aria-sort="descending"' : ''}><a href="${href}" data-sort="${escapeHtml(current ? '' : key)}">${text}${
      current ? ' ▾' : ''
    }</a></th>`;
  };
  const columnHeads = page.jettons.map((name) => sortable(`jetton:${name}`, escapeHtml(name))).join('');
  return (
    `<p class="result-count" aria-live="polite">${heading}</p><div class="scroll"><table class="wallets"><thead><tr>${sortable('name', 'name')}<th ` +
    `scope="col">address</th><th scope="col">status</th>${sortable('balance', 'balance, TON')}<th scope="col">minimum</th>${columnHeads}` +
    `<th scope="col">attention</th></tr></thead><tbody>${page.rows.map(walletRowHtml).join('')}</tbody></table></div>${nav}`
  );
}
