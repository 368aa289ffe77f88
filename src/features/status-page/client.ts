/// <reference lib="dom" />
import { renderStatus } from './render.js';
import type { StatusModel, WalletPage } from './types.js';

/**
 * The status page in the browser (served as /assets/client.js): every few seconds it asks
 * /api/status and the current wallet page, and redraws the sections with the same
 * renderer the server used for the first paint. The search form and the page links work
 * without it (plain GET /?q=&page=); with it they fetch the page instead of reloading.
 */

const root = document.documentElement;
const refreshSeconds = Math.max(1, Number(root.dataset['refresh'] ?? '5') || 5);
const params = new URLSearchParams(location.search);
let query = params.get('q') ?? '';
let page = Number(params.get('page') ?? '1') || 1;
let sort = params.get('sort') ?? '';
let inFlight = false;

const section = (id: string): HTMLElement | null => document.getElementById(id);

async function refresh(): Promise<void> {
  if (inFlight) return;
  inFlight = true;
  try {
    const [model, wallets] = await Promise.all([
      fetch('/api/status', { headers: { accept: 'application/json' } }).then((r) => r.json() as Promise<StatusModel>),
      fetch(`/api/status/wallets?q=${encodeURIComponent(query)}&sort=${encodeURIComponent(sort)}&page=${page}`, {
        headers: { accept: 'application/json' },
      }).then((r) => r.json() as Promise<WalletPage>),
    ]);
    const sections = renderStatus(model, wallets);
    for (const [id, html] of Object.entries(sections) as [string, string][]) {
      const element = section(`section-${id}`);
      if (element !== null && element.innerHTML !== html) element.innerHTML = html;
    }
    root.dataset['updated'] = String(model.generatedAt);
  } catch {
    root.dataset['updated'] = 'failed';
  } finally {
    inFlight = false;
  }
}

function go(nextQuery: string, nextPage: number): void {
  query = nextQuery;
  page = nextPage;
  const sorted = sort === '' ? '' : `&sort=${encodeURIComponent(sort)}`;
  history.replaceState(null, '', `/?q=${encodeURIComponent(query)}${sorted}&page=${page}${refreshSeconds === 5 ? '' : `&refresh=${refreshSeconds}`}#wallets`);
  void refresh();
}

document.getElementById('wallet-search')?.addEventListener('submit', (event) => {
  event.preventDefault();
  const input = document.getElementById('wallet-query') as HTMLInputElement | null;
  go(input?.value ?? '', 1);
});
section('section-wallets')?.addEventListener('click', (event) => {
  const target = event.target as Element | null;
  const sortLink = target?.closest('a[data-sort]');
  if (sortLink !== null && sortLink !== undefined) {
    event.preventDefault();
    sort = sortLink.getAttribute('data-sort') ?? '';
    go(query, 1);
    return;
  }
  const link = target?.closest('a[data-page]');
  if (link === null || link === undefined) return;
  event.preventDefault();
  go(query, Number(link.getAttribute('data-page')) || 1);
});

setInterval(() => void refresh(), refreshSeconds * 1000);
void refresh();
