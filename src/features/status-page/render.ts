import type { JettonCell, ShardStatus, StatusModel, UpstreamStatus, WalletPage, WalletRow } from './types.js';

/**
 * The status page's sections as HTML, from the model. Runs on the server (the first paint,
 * readable without JavaScript) and in the browser (every refresh), so it imports nothing
 * at run time and touches no DOM. Every value goes through escapeHtml. No inline styles
 * (the page's Content-Security-Policy allows none): bars and the chart are SVG shapes
 * coloured by class.
 */

export interface StatusSections {
  readonly summary: string;
  readonly queue: string;
  readonly history: string;
  readonly wallets: string;
  readonly upstreams: string;
}

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const percent = (ratio: number | null): string => (ratio === null ? '–' : `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)} %`);
const ago = (at: number | null, now: number): string => (at === null ? 'never' : `${Math.max(0, Math.round((now - at) / 1000))} s ago`);
const number = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

export function renderStatus(model: StatusModel, wallets: WalletPage): StatusSections {
  return {
    summary: renderSummary(model),
    queue: renderQueue(model),
    history: renderHistory(model),
    wallets: renderWallets(model, wallets),
    upstreams: renderUpstreams(model),
  };
}

function renderSummary(model: StatusModel): string {
  const queue = model.queue;
  const worst = queue?.shards.reduce<ShardStatus | null>((a, s) => (a === null || (s.ratio ?? 0) > (a.ratio ?? 0) ? s : a), null) ?? null;
  return `<p><strong>tonwatch ${escapeHtml(model.version)}</strong>. Queue sizes: ${
    queue === null ? 'none yet' : `${escapeHtml(queue.ageSeconds.toFixed(1))} s old${queue.fresh ? '' : ' (stale)'}, from ${escapeHtml(queue.upstream)}`
  }. Wallets: ${
    model.wallets.watched === 0
      ? 'none watched'
      : `${number(model.wallets.watched)} watched, ${
          model.wallets.ageSeconds === null ? 'no ' + 'data yet' : `${escapeHtml(model.wallets.ageSeconds.toFixed(1))} s old`
        }, <a href="#wallets">${number(model.wallets.attention)} need ` + `attention</a>`
  }. Highest pressure: <span class="level-${worst?.level ?? 'ok'}">${
    worst === null ? '–' : `${percent(worst.ratio)} (${escapeHtml(`${worst.workchain}:${worst.shard}`)})`
  }</span>.</p>`;
}

function renderQueue(model: StatusModel): string {
  const queue = model.queue;
  if (queue === null) return '<p>No queue sizes yet: the first poll has not finished.</p>';
  const width = 400;
  const rows = queue.shards
    .map((s) => {
      const name = `${s.workchain}:${s.shard}`;
      const filled = Math.max(0, Math.min(1, s.ratio ?? 0)) * width;
      const mark = (ratio: number) => `<line class="threshold" x1="${ratio * width}" x2="${ratio * width}" y1="0" y2="16"/>`;
      return (
        `<tr class="shard level-${s.level}" data-shard="${escapeHtml(name)}" data-size="${s.size}"><th scope="row">${escapeHtml(name)}</th><td>` +
        `<svg class="bar" viewBox="0 0 ${width} 16" preserveAspectRatio="none" role="img" aria-label="${escapeHtml(
          `${name}: ${s.size} of ${queue.limit} messages, ${s.level}`,
        )}"><rect class="track" x="0" y="0" width="${width}" height="16"/><rect class="fill level-${s.level}" x="0" y="0" width="${filled.toFixed(1)}" ` +
        `height="16"/>${mark(model.thresholds.warning)}${mark(model.thresholds.critical)}</svg></td><td class="num">${number(s.size)}</td><td ` +
        `class="num">${percent(s.ratio)}</td><td class="num">${number(s.seqno)}</td></tr>`
      );
    })
    .join('');
  return (
    `<div class="scroll"><table class="shards"><caption>Outbound queue per shard against ext_msg_queue_size_limit = ${number(queue.limit)} ` +
    `(warning above ${percent(model.thresholds.warning)}, critical above ${percent(
      model.thresholds.critical,
    )}, as the alerts)</caption><thead><tr><th scope="col">shard</th><th scope="col">pressure</th><th scope="col">size</th><th scope="col">of limit</th>` +
    `<th scope="col">block</th></tr></thead><tbody>${rows}</tbody></table></div>`
  );
}

function renderHistory(model: StatusModel): string {
  const { series, fromSeconds, toSeconds } = model.history;
  const points = series.reduce((n, s) => n + s.points.length, 0);
  if (points === 0) return '<p>No history yet.</p>';
  const width = 720;
  const height = 200;
  const limit = model.queue?.limit ?? 0;
  // The y axis fits the data (a calm queue's moves stay visible); the limit shows once a queue comes near it.
  const highest = Math.max(...series.flatMap((s) => s.points.map((p) => p[1])), 0);
  const top = Math.max(Math.ceil(highest * 1.25), 10);
  // The x axis runs from the oldest point kept (at most an hour back) to now.
  const start = Math.max(fromSeconds, Math.min(...series.map((s) => s.points[0]?.[0] ?? toSeconds)));
  const span = Math.max(1, toSeconds - start);
  const x = (t: number) => (((t - start) / span) * width).toFixed(1);
  const y = (v: number) => (height - (v / top) * height).toFixed(1);
  const lines = series
    .map((s, i) => {
      const coordinates = s.points.map((p) => `${x(p[0])},${y(p[1])}`).join(' ');
      const last = s.points[s.points.length - 1];
      return (
        `<polyline class="series series-${i % 8}" data-shard="${escapeHtml(s.shard)}" data-points="${s.points.length}" points="${coordinates}">` +
        `<title>${escapeHtml(`${s.shard}: ${last === undefined ? '' : `${last[1]} now`}`)}</title></polyline>`
      );
    })
    .join('');
  const limitLine =
    limit > 0 && limit <= top ? `<line class="limit" x1="0" x2="${width}" y1="${y(limit)}" y2="${y(limit)}"><title>limit ${limit}</title></line>` : '';
  const legend = series.map((s, i) => `<li><span class="swatch series-${i % 8}" aria-hidden="true">■</span> ${escapeHtml(s.shard)}</li>`).join('');
  return (
    `<figure><svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(
      `Queue size per shard over the last ${Math.max(1, Math.round(span / 60))} minutes, ${points} points`,
    )}">${limitLine}${lines}</svg><figcaption>Queue size per shard, the last ${Math.max(1, Math.round(span / 60))} min (up to an hour; top of the ` +
    `chart: ${number(top)}${limit > 0 && limit <= top ? '; dashed: the limit' : ''}).<ul class="legend">${legend}</ul></figcaption></figure>`
  );
}

const ATTENTION: Record<NonNullable<WalletRow['attention']>, string> = {
  below_threshold: 'below threshold',
  below_jetton_threshold: 'below a jetton threshold',
  not_active: 'not active',
};

const jettonCell = (c: JettonCell): string => {
  const title = c.min === null ? '' : ` title="minimum ${escapeHtml(c.min)}"`;
  return `<td class="num${c.below ? ' below' : ''}"${title}>${c.balance === null ? '–' : escapeHtml(c.balance)}</td>`;
};

const walletRow = (r: WalletRow): string =>
  `<tr class="${r.attention === null ? '' : 'attention'}"><td>${escapeHtml(r.name)}</td><td><code ` +
  `title="${escapeHtml(r.address)}">${escapeHtml(r.userFriendly)}</code></td><td class="status-${escapeHtml(
    r.status.replace(/\s/g, '-'),
  )}">${escapeHtml(r.status)}</td><td class="num">${r.balanceTons === null ? '–' : escapeHtml(r.balanceTons)}</td><td ` +
  `class="num">${r.minBalanceTons === null ? '–' : escapeHtml(r.minBalanceTons)}</td>${r.jettons.map(jettonCell).join('')}<td>${
    r.attention === null ? '' : ATTENTION[r.attention]
  }</td></tr>`;

function renderWallets(model: StatusModel, page: WalletPage): string {
  if (model.wallets.watched === 0) return '<p>No wallets on the watchlist.</p>';
  const link = (p: number, text: string) =>
    `<a href="/?q=${encodeURIComponent(page.query)}&amp;sort=${encodeURIComponent(page.sort)}&amp;page=${p}#wallets" data-page="${p}">${text}</a>`;
  const nav =
    page.pages > 1
      ? `<nav class="pages" aria-label="wallet pages">${page.page > 1 ? link(page.page - 1, '← previous') : ''} page ${page.page} ` +
        `of ${page.pages} ${page.page < page.pages ? link(page.page + 1, 'next →') : ''}</nav>`
      : '';
  const heading =
    page.query === '' ? `${number(page.total)} wallets, those needing attention first` : `${number(page.total)} match “${escapeHtml(page.query)}”`;
  // Sortable headers: links that work without the script (GET /?sort=), fetched in place with it.
  const sortable = (key: string, text: string): string => {
    const current = page.sort === key;
    const href = `/?q=${encodeURIComponent(page.query)}&amp;sort=${encodeURIComponent(current ? '' : key)}#wallets`;
    return `<th scope="col"${current ? ' aria-sort="descending"' : ''}><a href="${href}" data-sort="${escapeHtml(current ? '' : key)}">${text}${
      current ? ' ▾' : ''
    }</a></th>`;
  };
  const jettonHeads = page.jettons.map((name) => sortable(`jetton:${name}`, escapeHtml(name))).join('');
  return (
    `<p class="result-count" aria-live="polite">${heading}</p><div class="scroll"><table class="wallets"><thead><tr>${sortable('name', 'name')}<th ` +
    `scope="col">address</th><th scope="col">status</th>${sortable('balance', 'balance, TON')}<th scope="col">minimum</th>${jettonHeads}` +
    `<th scope="col">attention</th></tr></thead><tbody>${page.rows.map(walletRow).join('')}</tbody></table></div>${nav}`
  );
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

function renderUpstreams(model: StatusModel): string {
  return (
    `<div class="scroll"><table class="upstreams"><caption>In failover order; answers of the last ten minutes</caption><thead><tr><th ` +
    `scope="col">upstream</th><th scope="col">URL</th><th scope="col">last success</th><th scope="col">answers by code</th><th scope="col">429s</th>` +
    `<th scope="col">lag, blocks</th><th scope="col">indexer lag</th></tr></thead><tbody>${model.upstreams
      .map((u) => upstreamRow(u, model.generatedAt))
      .join('')}</tbody></table></div>`
  );
}
