import { compressSmall, createGzipMembers, inflateParts, type Compressor, type GzipPart } from './gzip-members.js';
import type { SelfMetrics } from './registry.js';

/**
 * A block of chain series a feature renders itself: text that is the same Buffer while
 * unchanged (compressed once then), or parts already compressed (a large block, kept
 * compressed only; decompressed a part at a time for a scrape without gzip).
 */
export type MetricBlock = { readonly kind: 'text'; text(now: number): Buffer } | { readonly kind: 'gzip'; parts(now: number): Promise<readonly GzipPart[]> };

/**
 * A /metrics body. gzip: members sent in order. identity: `length` bytes, made as they are
 * sent (blocks kept compressed only are decompressed a member at a time).
 */
export type MetricsBody =
  | { readonly encoding: 'gzip'; readonly parts: readonly Buffer[] }
  | { readonly encoding: 'identity'; readonly length: number; stream(): AsyncIterable<Buffer> };

export interface MetricsExposition {
  readonly contentType: string;
  /**
   * The whole /metrics body: the features' chain series (each rendered and compressed when
   * it changes), then the self metrics. With `gzip`, each block (and Node's process
   * metrics, made at most once a second) is compressed once after it changed; only
   * tonwatch's own small part is compressed per scrape.
   */
  render(gzip: boolean): Promise<MetricsBody>;
}

export interface MetricsExpositionDeps {
  readonly self: SelfMetrics;
  readonly now: () => number;
  /** The chain series, in order (the features'). */
  readonly blocks: () => readonly MetricBlock[];
  /** Compression in the thread pool, shared with the blocks' own (default: one of its own). */
  readonly compressor?: Compressor;
}

export function createMetricsExposition(deps: MetricsExpositionDeps): MetricsExposition {
  const gzipMembers = createGzipMembers(deps.compressor);
  // The own part's member, made again only when the part is a new reading.
  let ownMember: { text: Buffer; gzip: Buffer } = { text: Buffer.alloc(0), gzip: Buffer.alloc(0) };

  /** Each block's parts: its text (to be compressed once), or its compressed parts. */
  const blockParts = (now: number): Promise<readonly (Buffer | readonly GzipPart[])[]> =>
    Promise.all(deps.blocks().map(async (block) => (block.kind === 'text' ? block.text(now) : block.parts(now))));

  return {
    contentType: deps.self.registry.contentType,
    async render(gzip) {
      const started = performance.now();
      const blocks = await blockParts(deps.now());
      const [own, processPart] = await deps.self.texts();
      let body: MetricsBody;
      let bytes: number;
      if (gzip) {
        const members = await Promise.all(
          blocks.map(async (block) => (Buffer.isBuffer(block) ? (block.length > 0 ? gzipMembers.kept(block) : block) : block.map((part) => part.gzip))),
        );
        const processMember = await gzipMembers.kept(processPart);
        // A few KiB, new at most every few scrapes: compressed here, ~35 µs, where the
        // thread pool's round trip costs more than the compression.
        if (own !== ownMember.text) ownMember = { text: own, gzip: compressSmall(own).gzip };
        const parts = [...members.flat(), processMember, ownMember.gzip].filter((part) => part.length > 0);
        body = { encoding: 'gzip', parts };
        bytes = parts.reduce((sum, part) => sum + part.length, 0);
      } else {
        const lengthOf = (block: Buffer | readonly GzipPart[]): number => (Buffer.isBuffer(block) ? block.length : block.reduce((sum, p) => sum + p.length, 0));
        bytes = blocks.reduce((sum, block) => sum + lengthOf(block), 0) + processPart.length + own.length;
        body = {
          encoding: 'identity',
          length: bytes,
          async *stream() {
            for (const block of blocks) {
              if (Buffer.isBuffer(block)) {
                if (block.length > 0) yield block;
              } else yield* inflateParts(block);
            }
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
