import type { Config } from '../../domain/config.js';
import { escapeHtml } from '../../serve/html.js';
import { upstreamLocation } from '../../upstream/kinds.js';
import type { StatusSection, UpstreamLagView } from '../provisions.js';
import type { UpstreamHealth } from './upstream-health.js';

export interface UpstreamStatus {
  readonly name: string;
  /** Where it is, as it may be shown (no secret). */
  readonly url: string;
  readonly lastSuccessAt: number | null;
  /** Answers of the last ten minutes by code. */
  readonly recentCodes: Readonly<Record<string, number>>;
  readonly rateLimited: number;
  readonly lagBlocks: number | null;
  readonly indexerLagBlocks: number | null;
}

const ago = (at: number | null, now: number): string => (at === null ? 'never' : `${Math.max(0, Math.round((now - at) / 1000))} s ago`);

/** The status page's own section: each upstream, in failover order, with its health and lag. */
export function upstreamsSection(deps: { config: () => Config; health: UpstreamHealth; lags: () => readonly UpstreamLagView[] }): StatusSection {
  return {
    id: 'upstreams',
    title: 'Upstreams',
    order: 40,
    model(now) {
      const [lags] = deps.lags();
      const found = lags?.current();
      const upstreams: UpstreamStatus[] = deps.config().upstreams.map((u) => {
        const health = deps.health.view(u.name, now);
        const lag = found?.get(u.name);
        return {
          name: u.name,
          url: upstreamLocation(u),
          lastSuccessAt: health.lastSuccessAt ?? null,
          recentCodes: health.recentCodes,
          rateLimited: health.recentCodes['429'] ?? 0,
          lagBlocks: lag?.lagBlocks ?? null,
          indexerLagBlocks: lag?.indexerLagBlocks ?? null,
        };
      });
      return { upstreams };
    },
    html: (model, _params, now) => renderUpstreams((model as { upstreams: readonly UpstreamStatus[] }).upstreams, now),
  };
}

const upstreamRow = (u: UpstreamStatus, now: number): string => {
  const codes = Object.entries(u.recentCodes)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([code, n]) => `${escapeHtml(code)}: ${n}`)
    .join(', ');
  return (
    `<tr><th scope="row">${escapeHtml(u.name)}</th><td><code>${escapeHtml(u.url)}</code></td><td>${ago(u.lastSuccessAt, now)}</td>` +
    `<td>${codes === '' ? '–' : codes}</td><td class="num${
      u.rateLimited > 0 ? ' level-warning' : ''
    }">${u.rateLimited}</td><td class="num">${u.lagBlocks ?? '–'}</td><td class="num">${u.indexerLagBlocks ?? '–'}</td></tr>`
  );
};

function renderUpstreams(upstreams: readonly UpstreamStatus[], now: number): string {
  return (
    `<div class="scroll"><table class="upstreams"><caption>In failover order; answers of the last ten minutes</caption><thead><tr><th ` +
    `scope="col">upstream</th><th scope="col">URL</th><th scope="col">last success</th><th scope="col">answers by code</th><th scope="col">429s</th>` +
    `<th scope="col">lag, blocks</th><th scope="col">indexer lag</th></tr></thead>` +
    `<tbody>${upstreams.map((u) => upstreamRow(u, now)).join('')}</tbody></table></div>`
  );
}
