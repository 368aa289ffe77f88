import { escapeHtml, percent, thousands } from '../../serve/html.js';
import { ageSeconds, isFresh } from '../../snapshot/freshness.js';
import { signedShardToHex } from '../../ton/shard.js';
import type { StatusSection } from '../provisions.js';
import type { HistoryView, QueueHistory } from './history.js';
import type { QueueSizesSnapshot } from './types.js';

/** The alert rules' thresholds (TonQueuePressureHigh, TonQueuePressureCritical); a test keeps them equal. */
export const PRESSURE_WARNING = 0.5;
export const PRESSURE_CRITICAL = 0.8;

export type PressureLevel = 'ok' | 'warning' | 'critical';

export function pressureLevel(ratio: number | null): PressureLevel {
  if (ratio === null) return 'ok';
  return ratio > PRESSURE_CRITICAL ? 'critical' : ratio > PRESSURE_WARNING ? 'warning' : 'ok';
}

export interface ShardStatus {
  readonly workchain: number;
  /** Unsigned 16-digit hex, as in the metrics. */
  readonly shard: string;
  readonly seqno: number;
  readonly size: number;
  /** size / ext_msg_queue_size_limit; null when the limit is 0. */
  readonly ratio: number | null;
  readonly level: PressureLevel;
}

/** The queue sizes' part of /api/status. */
export interface QueueStatus {
  /** The alert rules' thresholds, so the colours match the alerts. */
  readonly thresholds: { readonly warning: number; readonly critical: number };
  readonly queue: {
    readonly fetchedAt: number;
    readonly ageSeconds: number;
    readonly fresh: boolean;
    readonly upstream: string;
    readonly limit: number;
    readonly shards: readonly ShardStatus[];
  } | null;
}

export function queueStatusOf(snapshot: QueueSizesSnapshot | null, now: number, maxAgeSeconds: number): QueueStatus {
  const thresholds = { warning: PRESSURE_WARNING, critical: PRESSURE_CRITICAL };
  if (snapshot === null) return { thresholds, queue: null };
  const limit = snapshot.extMsgQueueSizeLimit;
  return {
    thresholds,
    queue: {
      fetchedAt: snapshot.fetchedAt,
      ageSeconds: ageSeconds(snapshot.fetchedAt, now),
      fresh: isFresh(snapshot.fetchedAt, now, maxAgeSeconds),
      upstream: snapshot.upstream,
      limit,
      shards: snapshot.shards.map((s) => {
        const ratio = limit > 0 ? s.size / limit : null;
        return { workchain: s.workchain, shard: signedShardToHex(s.shard), seqno: s.seqno, size: s.size, ratio, level: pressureLevel(ratio) };
      }),
    },
  };
}

export interface QueueSectionsDeps {
  readonly held: () => QueueSizesSnapshot | null;
  readonly history: QueueHistory;
  readonly maxAgeSeconds: () => number;
}

/** The status page's sections of the queue sizes: pressure per shard, and the last hour. */
export function queueSections(deps: QueueSectionsDeps): readonly StatusSection[] {
  const status = (model: Readonly<Record<string, unknown>>): QueueStatus => model as unknown as QueueStatus;
  return [
    {
      id: 'queue',
      title: 'Queue pressure',
      order: 10,
      model: (now) => queueStatusOf(deps.held(), now, deps.maxAgeSeconds()) as unknown as Readonly<Record<string, unknown>>,
      html: (model) => renderQueue(status(model)),
      summary: (model) => summaryOf(status(model)),
    },
    {
      id: 'history',
      title: 'The last hour',
      order: 20,
      model: (now) => ({ history: deps.history.view(now) }),
      html: (model) => renderHistory((model as { history: HistoryView }).history, deps.held()?.extMsgQueueSizeLimit ?? 0),
    },
  ];
}

function summaryOf({ queue }: QueueStatus): readonly (readonly [number, string])[] {
  const worst = queue?.shards.reduce<ShardStatus | null>((a, s) => (a === null || (s.ratio ?? 0) > (a.ratio ?? 0) ? s : a), null) ?? null;
  const age =
    queue === null ? 'none yet' : `${escapeHtml(queue.ageSeconds.toFixed(1))} s old${queue.fresh ? '' : ' (stale)'}, from ${escapeHtml(queue.upstream)}`;
  const highest = worst === null ? '–' : `${percent(worst.ratio)} (${escapeHtml(`${worst.workchain}:${worst.shard}`)})`;
  return [
    [10, `Queue sizes: ${age}`],
    [30, `Highest pressure: <span class="level-${worst?.level ?? 'ok'}">${highest}</span>`],
  ];
}

function renderQueue({ queue, thresholds }: QueueStatus): string {
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
        `height="16"/>${mark(thresholds.warning)}${mark(thresholds.critical)}</svg></td><td class="num">${thousands(s.size)}</td><td ` +
        `class="num">${percent(s.ratio)}</td><td class="num">${thousands(s.seqno)}</td></tr>`
      );
    })
    .join('');
  return (
    `<div class="scroll"><table class="shards"><caption>Outbound queue per shard against ext_msg_queue_size_limit = ${thousands(queue.limit)} ` +
    `(warning above ${percent(thresholds.warning)}, critical above ${percent(thresholds.critical)}, as the alerts)</caption><thead><tr><th scope="col">` +
    `shard</th><th scope="col">pressure</th><th scope="col">size</th><th scope="col">of limit</th><th scope="col">block</th></tr></thead><tbody>${rows}` +
    `</tbody></table></div>`
  );
}

function renderHistory(history: HistoryView, limit: number): string {
  const { series, fromSeconds, toSeconds } = history;
  const points = series.reduce((n, s) => n + s.points.length, 0);
  if (points === 0) return '<p>No history yet.</p>';
  const width = 720;
  const height = 200;
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
  const minutes = Math.max(1, Math.round(span / 60));
  return (
    `<figure><svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(
      `Queue size per shard over the last ${minutes} minutes, ${points} points`,
    )}">${limitLine}${lines}</svg><figcaption>Queue size per shard, the last ${minutes} min (up to an hour; top of the chart: ${thousands(top)}` +
    `${limit > 0 && limit <= top ? '; dashed: the limit' : ''}).<ul class="legend">${legend}</ul></figcaption></figure>`
  );
}
