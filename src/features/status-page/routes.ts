import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { STATUS_SCRIPTS } from '../../app/assets.js';
import { createStatusModel, type StatusSources } from './model.js';
import { escapeHtml, renderStatus } from './render.js';
import { STATUS_CSS } from './style.js';
import type { StatusModel } from './types.js';
import { JSON_TYPE, type ServedResponse } from '../../serve/response.js';
import type { Route } from '../../serve/server.js';

/**
 * The status page: `/` (rendered on the server, readable without JavaScript), the JSON it
 * refreshes from (`/api/status`, `/api/status/wallets`), and its own assets (`/assets/…`),
 * all from tonwatch itself: no CDN. The page's Content-Security-Policy allows nothing but
 * its own origin's script, stylesheet and fetches.
 */

export const STATUS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b57d0"/><rect x="3" y="9" width="2" ' +
  'height="4" fill="#fff"/><rect x="7" y="6" width="2" height="7" fill="#fff"/><rect x="11" y="3" width="2" height="10" fill="#fff"/></svg>';

/** The browser modules, compiled from src/status/. */
const SCRIPTS: Readonly<Record<string, URL>> = {
  '/assets/client.js': STATUS_SCRIPTS.client,
  '/assets/render.js': STATUS_SCRIPTS.render,
};

export interface StatusPageDeps {
  readonly sources: () => StatusSources;
  readonly logger: Logger;
}

export function createStatusRoutes(deps: StatusPageDeps): [string, Route][] {
  const maker = createStatusModel();
  let cached: { key: readonly unknown[]; model: StatusModel; json: Buffer } | null = null;

  /** The model and its JSON, made again only when a snapshot, the history, upstream health or the second changes. */
  function current(): { model: StatusModel; json: Buffer; sources: StatusSources } {
    const sources = deps.sources();
    const key = [sources.snapshot, sources.history.version, sources.upstreamHealth.version, sources.lags, sources.watchlist, Math.floor(sources.now / 1000)];
    if (cached === null || cached.key.some((part, i) => part !== key[i])) {
      const model = maker.model(sources);
      cached = { key, model, json: Buffer.from(JSON.stringify(model)) };
    }
    return { model: cached.model, json: cached.json, sources };
  }

  const params = (query: string) => new URLSearchParams(query);
  const pageOf = (value: string | null): number => Math.max(1, Math.floor(Number(value ?? '1')) || 1);

  /** Rendered pages of the current model, by query string: the same bytes until the model changes. */
  let pages: { model: StatusModel; byQuery: Map<string, ServedResponse> } | null = null;
  const PAGES_KEPT = 64;

  const page: Route['handle'] = (request) => {
    const { model, sources } = current();
    if (pages === null || pages.model !== model) pages = { model, byQuery: new Map() };
    let answer = pages.byQuery.get(request.query);
    if (answer === undefined) {
      answer = renderPage(model, sources, request.query);
      if (pages.byQuery.size >= PAGES_KEPT) pages.byQuery.clear();
      pages.byQuery.set(request.query, answer);
    }
    return answer;
  };

  const renderPage = (model: StatusModel, sources: StatusSources, query: string): ServedResponse => {
    const q = params(query);
    const wallets = maker.wallets(sources, q.get('q') ?? '', pageOf(q.get('page')), q.get('sort') ?? '');
    const refresh = Math.min(300, Math.max(1, Math.floor(Number(q.get('refresh') ?? '5')) || 5));
    const sections = renderStatus(model, wallets);
    const html = pageHtml(model, sections, wallets.query, refresh);
    return {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': STATUS_CSP },
      body: html,
    };
  };

  const json = (body: Buffer | string): ServedResponse => ({ status: 200, headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-cache' }, body });
  /** The /api/status answer of the current model, made once per model. */
  let statusAnswer: { json: Buffer; response: ServedResponse } | null = null;
  const statusResponse = (): ServedResponse => {
    const { json: body } = current();
    if (statusAnswer === null || statusAnswer.json !== body) {
      statusAnswer = {
        json: body,
        response: { status: 200, headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-cache', 'content-length': String(body.length) }, body },
      };
    }
    return statusAnswer.response;
  };

  const script = createScriptAssets(deps.logger);
  const fixed =
    (type: string, body: string): Route['handle'] =>
    () => ({ status: 200, headers: { 'content-type': type, 'cache-control': 'max-age=300', 'x-content-type-options': 'nosniff' }, body });

  return [
    ['/', { endpoint: 'index', handle: page }],
    ['/api/status', { endpoint: 'status', handle: statusResponse }],
    [
      '/api/status/wallets',
      {
        endpoint: 'status',
        handle: (request) => {
          const q = params(request.query);
          return json(JSON.stringify(maker.wallets(current().sources, q.get('q') ?? '', pageOf(q.get('page')), q.get('sort') ?? '')));
        },
      },
    ],
    ['/assets/status.css', { endpoint: 'asset', handle: fixed('text/css; charset=utf-8', STATUS_CSS) }],
    ['/assets/favicon.svg', { endpoint: 'asset', handle: fixed('image/svg+xml', FAVICON) }],
    ['/assets/client.js', { endpoint: 'asset', handle: script('/assets/client.js') }],
    ['/assets/render.js', { endpoint: 'asset', handle: script('/assets/render.js') }],
  ];
}

/** The page's HTML around its rendered sections. */
function pageHtml(model: StatusModel, sections: ReturnType<typeof renderStatus>, query: string, refresh: number): string {
  return (
    `<!doctype html>
<html lang="en" data-refresh="${refresh}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>tonwatch ${escapeHtml(model.version)}: TON queue pressure and wallets</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/assets/status.css">
<script type="module" src="/assets/client.js"></script></head>
<body><header><h1>tonwatch</h1><div id="section-summary" aria-live="polite">${sections.summary}</div></header>
<main>
<section aria-labelledby="h-queue"><h2 id="h-queue">Queue pressure</h2><div id="section-queue">${sections.queue}</div></section>
<section aria-labelledby="h-history"><h2 id="h-history">The last hour</h2><div id="section-history">${sections.history}</div></section>
<section aria-labelledby="h-wallets" id="wallets"><h2 id="h-wallets">Wallets</h2>
<form id="wallet-search" class="search" role="search" method="get" action="/#wallets"><label for="wallet-query">Find a watched wallet by name or any ` +
    `address form</label>
<input id="wallet-query" name="q" type="search" value="${escapeHtml(query)}" autocomplete="off" spellcheck="false"><input type="hidden" ` +
    `name="refresh" value="${refresh}"><button type="submit">Search</button></form>
<div id="section-wallets">${sections.wallets}</div></section>
<section aria-labelledby="h-upstreams"><h2 id="h-upstreams">Upstreams</h2><div id="section-upstreams">${sections.upstreams}</div></section>
</main>
<footer><p><a href="/metrics">/metrics</a> · <a href="/api/v2/getOutMsgQueueSizes">/api/v2/getOutMsgQueueSizes</a> · <a href="/api/v3/walletStates">` +
    `/api/v3/walletStates?address=…</a> · <a href="/api/status">/api/status</a> · <a href="/healthz">/healthz</a> · <a href="/readyz">/readyz</a>. ` +
    `Refreshes every ${refresh} s with JavaScript; reload the page without it.</p></footer>
</body></html>
`
  );
}

/** The browser modules, read once from the build, as routes. */
function createScriptAssets(logger: Logger): (path: string) => Route['handle'] {
  const scripts = new Map<string, Promise<Buffer | null>>();
  return (path: string): Route['handle'] =>
    async () => {
      let loaded = scripts.get(path);
      if (loaded === undefined) {
        const file = SCRIPTS[path];
        loaded =
          file === undefined
            ? Promise.resolve(null)
            : readFile(file).catch((err: unknown) => {
                logger.error({ err, path }, 'status page asset missing (run the built tonwatch)');
                return null;
              });
        scripts.set(path, loaded);
      }
      const body = await loaded;
      if (body === null) return { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'asset not built' };
      return {
        status: 200,
        headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' },
        body,
      };
    };
}
