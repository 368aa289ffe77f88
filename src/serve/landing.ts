import { ageSeconds } from '../snapshot/freshness.js';
import type { Snapshot } from '../snapshot/types.js';
import type { ServedResponse } from './response.js';

export interface LandingInput {
  readonly version: string;
  readonly upstreams: readonly { readonly name: string; readonly url: string }[];
  readonly snapshot: Snapshot;
  readonly now: number;
  readonly watchlistSize: number;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function describeAge(fetchedAt: number | undefined, now: number): string {
  return fetchedAt === undefined ? 'none yet' : `${ageSeconds(fetchedAt, now).toFixed(1)} s old`;
}

/** `/`: a small page for humans: version, upstreams, snapshot ages, links. */
export function serveLanding(input: LandingInput): ServedResponse {
  const upstreams = input.upstreams.map((u) => `<li>${escapeHtml(u.name)}: ${escapeHtml(u.url)}</li>`).join('');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tonwatch ${escapeHtml(input.version)}</title></head>
<body>
<h1>tonwatch ${escapeHtml(input.version)}</h1>
<p>Prometheus exporter and caching query service for TON.</p>
<h2>Upstreams (in failover order)</h2><ul>${upstreams}</ul>
<h2>Snapshots</h2>
<ul>
<li>queue sizes: ${describeAge(input.snapshot.queueSizes?.fetchedAt, input.now)}</li>
<li>wallets (${input.watchlistSize} watched): ${describeAge(input.snapshot.wallets?.fetchedAt, input.now)}</li>
</ul>
<h2>Endpoints</h2>
<ul>
<li><a href="/metrics">/metrics</a></li>
<li><a href="/api/v2/getOutMsgQueueSizes">/api/v2/getOutMsgQueueSizes</a></li>
<li><a href="/api/v3/walletStates">/api/v3/walletStates?address=…</a></li>
<li><a href="/healthz">/healthz</a>, <a href="/readyz">/readyz</a></li>
</ul>
</body></html>
`;
  return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }, body: html };
}
