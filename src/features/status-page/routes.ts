import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { escapeHtml } from '../../serve/html.js';
import { JSON_TYPE, type ServedResponse } from '../../serve/response.js';
import { getOnly } from '../../serve/routes.js';
import type { Route } from '../../serve/route.js';
import type { StatusSection } from '../provisions.js';
import { STATUS_CSS } from './style.js';

/**
 * The status page: `/` (rendered on the server, readable without JavaScript), its sections
 * as HTML for the page's refreshes (`/api/status/sections`), every section's model as JSON
 * (`/api/status`), and its own assets (`/assets/…`), all from tonwatch itself: no CDN. The
 * page's Content-Security-Policy allows nothing but its own origin's script, stylesheet and
 * fetches.
 */

export const STATUS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b57d0"/><rect x="3" y="9" width="2" ' +
  'height="4" fill="#fff"/><rect x="7" y="6" width="2" height="7" fill="#fff"/><rect x="11" y="3" width="2" height="10" fill="#fff"/></svg>';

/** The page's script, compiled by tsc beside this module. */
const CLIENT_SCRIPT = new URL('./client.js', import.meta.url);

export interface StatusRoutesDeps {
  readonly version: string;
  readonly now: () => number;
  /** Every feature's sections, in page order. */
  readonly sections: () => readonly StatusSection[];
  readonly logger: Pick<Logger, 'error'>;
}

/** A model of every section, made at most once a second: a page's and its refreshes' answers come from it. */
interface Reading {
  readonly second: number;
  readonly sections: readonly StatusSection[];
  readonly models: readonly Readonly<Record<string, unknown>>[];
  readonly json: Buffer;
}

export function createStatusRoutes(deps: StatusRoutesDeps): readonly (readonly [string, Route])[] {
  let reading: Reading | null = null;
  const read = (): Reading => {
    const now = deps.now();
    const second = Math.floor(now / 1000);
    const sections = deps.sections();
    if (reading === null || reading.second !== second || reading.sections !== sections) {
      const models = sections.map((section) => section.model(now));
      const json = Buffer.from(JSON.stringify(Object.assign({ version: deps.version, generatedAt: now }, ...models)));
      reading = { second, sections, models, json };
    }
    return reading;
  };

  /** Each section's HTML, and the summary line, for a page's query parameters. */
  const rendered = (params: URLSearchParams): { summary: string; sections: Record<string, string> } => {
    const { sections, models } = read();
    const now = deps.now();
    const out: Record<string, string> = {};
    sections.forEach((section, i) => (out[section.id] = section.html(models[i] ?? {}, params, now)));
    const sentences = sections
      .flatMap((section, i) => section.summary?.(models[i] ?? {}) ?? [])
      .sort(([a], [b]) => a - b)
      .map(([, text]) => text);
    return { summary: `<p><strong>tonwatch ${escapeHtml(deps.version)}</strong>. ${sentences.join('. ')}.</p>`, sections: out };
  };

  const page: Route['handle'] = (request) => {
    const params = new URLSearchParams(request.query);
    const refresh = Math.min(300, Math.max(1, Math.floor(Number(params.get('refresh') ?? '5')) || 5));
    const html = pageHtml(deps.version, read().sections, rendered(params), params, refresh);
    return {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': STATUS_CSP },
      body: html,
    };
  };

  const json = (body: Buffer | string): ServedResponse => ({ status: 200, headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-cache' }, body });
  const fixed =
    (type: string, body: string): Route['handle'] =>
    () => ({ status: 200, headers: { 'content-type': type, 'cache-control': 'max-age=300' }, body });

  return [
    ['/', getOnly('index', page)],
    ['/api/status', getOnly('status', () => json(read().json))],
    [
      '/api/status/sections',
      getOnly('status', (request) => {
        const { summary, sections } = rendered(new URLSearchParams(request.query));
        return json(JSON.stringify({ generatedAt: deps.now(), sections: { summary, ...sections } }));
      }),
    ],
    ['/assets/status.css', getOnly('asset', fixed('text/css; charset=utf-8', STATUS_CSS))],
    ['/assets/favicon.svg', getOnly('asset', fixed('image/svg+xml', FAVICON))],
    ['/assets/client.js', getOnly('asset', clientScript(deps.logger))],
  ];
}

/** The page's HTML around its rendered sections. */
function pageHtml(
  version: string,
  sections: readonly StatusSection[],
  rendered: { summary: string; sections: Record<string, string> },
  params: URLSearchParams,
  refresh: number,
): string {
  const bodies = sections
    .map((section) => {
      const id = section.anchor === undefined ? '' : ` id="${section.anchor}"`;
      const controls = section.controls?.(params) ?? '';
      const heading = `<h2 id="h-${section.id}">${escapeHtml(section.title)}</h2>`;
      return (
        `<section aria-labelledby="h-${section.id}"${id}>${heading}${controls === '' ? '' : `\n${controls}\n`}` +
        `<div id="section-${section.id}">${rendered.sections[section.id] ?? ''}</div></section>`
      );
    })
    .join('\n');
  return (
    `<!doctype html>
<html lang="en" data-refresh="${refresh}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>tonwatch ${escapeHtml(version)}: TON queue pressure and wallets</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/assets/status.css">
<script type="module" src="/assets/client.js"></script></head>
<body><header><h1>tonwatch</h1><div id="section-summary" aria-live="polite">${rendered.summary}</div></header>
<main>
${bodies}
</main>
<footer><p><a href="/metrics">/metrics</a> · <a href="/api/v2/getOutMsgQueueSizes">/api/v2/getOutMsgQueueSizes</a> · <a href="/api/v3/walletStates">` +
    `/api/v3/walletStates?address=…</a> · <a href="/api/status">/api/status</a> · <a href="/healthz">/healthz</a> · <a href="/readyz">/readyz</a>. ` +
    `Refreshes every ${refresh} s with JavaScript; reload the page without it.</p></footer>
</body></html>
`
  );
}

/** The page's script, read once from the build. */
function clientScript(logger: Pick<Logger, 'error'>): Route['handle'] {
  let loaded: Promise<Buffer | null> | undefined;
  return async () => {
    loaded ??= readFile(CLIENT_SCRIPT).catch((err: unknown) => {
      logger.error({ err }, 'status page script missing (run the built tonwatch)');
      return null;
    });
    const body = await loaded;
    if (body === null) return { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'asset not built' };
    return { status: 200, headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' }, body };
  };
}
