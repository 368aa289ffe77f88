/// <reference lib="dom" />

/**
 * The status page in the browser (served as /assets/client.js): every few seconds it asks
 * /api/status/sections for the sections as the server renders them, for the page's current
 * search, page and sort, and puts each in place. The search form and the page and sort
 * links work without it (plain GET /?q=&page=&sort=); with it they fetch in place.
 */

const root = document.documentElement;
const refreshSeconds = Math.max(1, Number(root.dataset['refresh'] ?? '5') || 5);
const params = new URLSearchParams(location.search);
let query = params.get('q') ?? '';
let page = Number(params.get('page') ?? '1') || 1;
let sort = params.get('sort') ?? '';
let inFlight = false;

async function refresh(): Promise<void> {
  if (inFlight) return;
  inFlight = true;
  try {
    const search = `q=${encodeURIComponent(query)}&sort=${encodeURIComponent(sort)}&page=${page}`;
    const answer = (await (await fetch(`/api/status/sections?${search}`, { headers: { accept: 'application/json' } })).json()) as {
      generatedAt: number;
      sections: Record<string, string>;
    };
    for (const [id, html] of Object.entries(answer.sections)) {
      const element = document.getElementById(`section-${id}`);
      if (element !== null && element.innerHTML !== html) element.innerHTML = html;
    }
    root.dataset['updated'] = String(answer.generatedAt);
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
document.querySelector('main')?.addEventListener('click', (event) => {
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
