import { isFresh } from '../snapshot/freshness.js';
import type { QueueSizesSnapshot, Snapshot } from '../snapshot/types.js';
import { createGzipMembers } from './gzip-members.js';
import { renderQueueSeries } from './queue-series.js';
import type { SelfMetrics } from './registry.js';

/**
 * Renders the chain series for the wallets part of a snapshot, as encoded chunks; the same
 * array (by identity) as long as nothing changed.
 */
export interface WalletSeriesRenderer {
  render(snapshot: Snapshot, now: number): readonly Buffer[];
}

/** A /metrics body: parts sent in order, gzip members when `encoding` is gzip. */
export interface MetricsBody {
  readonly encoding: 'gzip' | 'identity';
  readonly parts: readonly Buffer[];
}

export interface MetricsExposition {
  readonly contentType: string;
  /**
   * The whole /metrics body: chain series (pre-rendered and pre-encoded per snapshot), then
   * self metrics. With `gzip`, each pre-rendered block (and Node's process metrics, made
   * at most once a second) is compressed once, when first sent after it changed; only
   * tonwatch's own small part is compressed per scrape.
   */
  render(gzip: boolean): Promise<MetricsBody>;
}

export interface MetricsExpositionDeps {
  readonly self: SelfMetrics;
  readonly snapshot: () => Snapshot;
  readonly now: () => number;
  readonly maxAgeSeconds: () => number;
  readonly wallets?: WalletSeriesRenderer;
}

/**
 * Chain series are rendered when a snapshot changes, not per scrape; stale data
 * (older than snapshot.maxAgeSeconds) is left out, so its series disappear.
 */
export function createMetricsExposition(deps: MetricsExpositionDeps): MetricsExposition {
  const queueText = new WeakMap<QueueSizesSnapshot, string>();
  const queueSeries = (snapshot: QueueSizesSnapshot): string => {
    let text = queueText.get(snapshot);
    if (text === undefined) {
      text = renderQueueSeries(snapshot);
      queueText.set(snapshot, text);
    }
    return text;
  };
  // The queue text is small: encode it once per change. Wallet series come encoded.
  let encodedQueue = { text: '', buffer: Buffer.alloc(0) };
  const gzipMembers = createGzipMembers();
  return {
    contentType: deps.self.registry.contentType,
    async render(gzip) {
      const started = performance.now();
      const now = deps.now();
      const snapshot = deps.snapshot();
      const queue = snapshot.queueSizes && isFresh(snapshot.queueSizes.fetchedAt, now, deps.maxAgeSeconds()) ? queueSeries(snapshot.queueSizes) : '';
      if (queue !== encodedQueue.text) encodedQueue = { text: queue, buffer: Buffer.from(queue) };
      const chain = [encodedQueue.buffer, ...(deps.wallets ? deps.wallets.render(snapshot, now) : [])].filter((part) => part.length > 0);
      const [own, processPart] = await deps.self.texts();
      const body: MetricsBody = gzip
        ? {
            encoding: 'gzip',
            parts: [
              ...(await Promise.all([...chain, processPart].filter((part) => part.length > 0).map((part) => gzipMembers.kept(part)))),
              await gzipMembers.once(own),
            ],
          }
        : { encoding: 'identity', parts: [...chain, processPart, own] };
      deps.self.metricsRendered(
        body.encoding,
        (performance.now() - started) / 1000,
        body.parts.reduce((sum, part) => sum + part.length, 0),
      );
      return body;
    },
  };
}
