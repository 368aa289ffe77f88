import { perObject } from '../domain/per-object.js';
import { isFresh } from '../snapshot/freshness.js';
import type { QueueSizesSnapshot, Snapshot } from '../snapshot/types.js';
import { compressSmall, createGzipMembers, inflateParts, type Compressor, type GzipPart } from './gzip-members.js';
import { renderQueueSeries } from '../features/queue-sizes/series.js';
import type { SelfMetrics } from './registry.js';

/**
 * Renders the chain series for the wallets part of a snapshot, as gzip members; the same
 * array (by identity) as long as nothing changed.
 */
export interface WalletSeriesRenderer {
  render(snapshot: Snapshot, now: number): Promise<readonly GzipPart[]>;
}

/**
 * A /metrics body. gzip: members sent in order. identity: `length` bytes, made as they are
 * sent (the wallet series are kept compressed only, and decompressed a member at a time).
 */
export type MetricsBody =
  | { readonly encoding: 'gzip'; readonly parts: readonly Buffer[] }
  | { readonly encoding: 'identity'; readonly length: number; stream(): AsyncIterable<Buffer> };

export interface MetricsExposition {
  readonly contentType: string;
  /**
   * The whole /metrics body: chain series (pre-rendered and compressed per snapshot), then
   * self metrics. With `gzip`, each pre-rendered block (and Node's process metrics, made
   * at most once a second) is compressed once after it changed; only tonwatch's own
   * small part is compressed per scrape. Without, the wallet members are decompressed as
   * the body is sent.
   */
  render(gzip: boolean): Promise<MetricsBody>;
}

export interface MetricsExpositionDeps {
  readonly self: SelfMetrics;
  readonly snapshot: () => Snapshot;
  readonly now: () => number;
  readonly maxAgeSeconds: () => number;
  readonly wallets?: WalletSeriesRenderer;
  /** Further chain series (the features'): text blocks, each the same Buffer while unchanged, so each is compressed once. */
  readonly blocks?: (now: number) => readonly Buffer[];
  /** Whether this process exports the queue-size series (in a cluster, the replica that leads); default yes. */
  readonly queueExported?: () => boolean;
  /** Compression in the thread pool, shared with the wallet series' (default: one of its own). */
  readonly compressor?: Compressor;
}

/**
 * Chain series are rendered when a snapshot changes, not per scrape; stale data
 * (older than snapshot.maxAgeSeconds) is left out, so its series disappear.
 */
export function createMetricsExposition(deps: MetricsExpositionDeps): MetricsExposition {
  const queueSeries = perObject((snapshot: QueueSizesSnapshot): string => renderQueueSeries(snapshot));
  // The queue text is small: encode it once per change. Wallet series come encoded.
  let encodedQueue = { text: '', buffer: Buffer.alloc(0) };
  const gzipMembers = createGzipMembers(deps.compressor);
  // The own part's member, made again only when the part is a new reading.
  let ownMember: { text: Buffer; gzip: Buffer } = { text: Buffer.alloc(0), gzip: Buffer.alloc(0) };
  return {
    contentType: deps.self.registry.contentType,
    async render(gzip) {
      const started = performance.now();
      const now = deps.now();
      const snapshot = deps.snapshot();
      const exported = deps.queueExported?.() ?? true;
      const queue =
        exported && snapshot.queueSizes && isFresh(snapshot.queueSizes.fetchedAt, now, deps.maxAgeSeconds()) ? queueSeries(snapshot.queueSizes) : '';
      if (queue !== encodedQueue.text) encodedQueue = { text: queue, buffer: Buffer.from(queue) };
      const queuePart = encodedQueue.buffer;
      const wallets = deps.wallets ? await deps.wallets.render(snapshot, now) : [];
      const blocks = (deps.blocks?.(now) ?? []).filter((block) => block.length > 0);
      const [own, processPart] = await deps.self.texts();
      let body: MetricsBody;
      let bytes: number;
      if (gzip) {
        const [queueMember, processMember, ...blockMembers] = await Promise.all([
          queuePart.length > 0 ? gzipMembers.kept(queuePart) : queuePart,
          gzipMembers.kept(processPart),
          ...blocks.map((block) => gzipMembers.kept(block)),
        ]);
        // A few KiB, new at most every few scrapes: compressed here, ~35 µs, where the
        // thread pool's round trip costs more than the compression.
        if (own !== ownMember.text) ownMember = { text: own, gzip: compressSmall(own).gzip };
        const parts = [queueMember, ...wallets.map((part) => part.gzip), ...blockMembers, processMember, ownMember.gzip].filter((part) => part.length > 0);
        body = { encoding: 'gzip', parts };
        bytes = parts.reduce((sum, part) => sum + part.length, 0);
      } else {
        bytes =
          queuePart.length +
          wallets.reduce((sum, part) => sum + part.length, 0) +
          blocks.reduce((sum, b) => sum + b.length, 0) +
          processPart.length +
          own.length;
        body = {
          encoding: 'identity',
          length: bytes,
          async *stream() {
            if (queuePart.length > 0) yield queuePart;
            yield* inflateParts(wallets);
            yield* blocks;
            yield processPart;
            yield own;
          },
        };
      }
      deps.self.metricsRendered(body.encoding, (performance.now() - started) / 1000, bytes);
      return body;
    },
  };
}
