import { signedShardToHex } from '../../ton/shard.js';
import type { QueueSizesSnapshot } from './types.js';

/**
 * The last hour of queue sizes for the status page: one sample per queue poll in a ring
 * of fixed size, older than an hour dropped. Each sample lists the shards of its own poll,
 * so a split or merge simply starts and ends series; memory is bounded by the ring, not by
 * how often the shard layout changes.
 */

/** One hour of history. */
export const HISTORY_MS = 60 * 60 * 1000;
/** Samples kept at most: an hour of one poll a second. */
export const MAX_SAMPLES = 3600;

interface Sample {
  /** Fetch time, ms since epoch. */
  readonly t: number;
  /** `workchain:SHARDHEX` → queue size. */
  readonly sizes: ReadonlyMap<string, number>;
}

/** The history as the page draws it: per shard, [unix seconds, size] points, oldest first. */
export interface HistoryView {
  readonly fromSeconds: number;
  readonly toSeconds: number;
  readonly series: readonly { readonly shard: string; readonly points: readonly (readonly [number, number])[] }[];
}

export interface QueueHistory {
  /** Adds a poll's sizes (once per snapshot; an older or repeated one is ignored). */
  record(snapshot: QueueSizesSnapshot): void;
  view(now: number): HistoryView;
  /** Changes with every recorded sample: a cache key. */
  readonly version: number;
  readonly samples: number;
}

export const shardKey = (workchain: number, signedShard: string): string => `${workchain}:${signedShardToHex(signedShard)}`;

export function createQueueHistory(): QueueHistory {
  const ring: (Sample | undefined)[] = new Array<Sample | undefined>(MAX_SAMPLES);
  let next = 0;
  let count = 0;
  let last = -Infinity;
  let version = 0;
  let viewCache: { version: number; from: number; view: HistoryView } | null = null;

  return {
    record(snapshot) {
      if (snapshot.fetchedAt <= last) return;
      last = snapshot.fetchedAt;
      ring[next] = { t: snapshot.fetchedAt, sizes: new Map(snapshot.shards.map((s) => [shardKey(s.workchain, s.shard), s.size])) };
      next = (next + 1) % MAX_SAMPLES;
      count = Math.min(MAX_SAMPLES, count + 1);
      version += 1;
    },
    view(now) {
      const from = now - HISTORY_MS;
      // Same samples and the same whole second: the same view.
      const fromSecond = Math.floor(from / 1000);
      if (viewCache !== null && viewCache.version === version && viewCache.from === fromSecond) return viewCache.view;
      const series = new Map<string, [number, number][]>();
      for (let i = 0; i < count; i += 1) {
        const sample = ring[(next - count + i + MAX_SAMPLES) % MAX_SAMPLES];
        if (sample === undefined || sample.t < from) continue;
        for (const [shard, size] of sample.sizes) {
          let points = series.get(shard);
          if (points === undefined) series.set(shard, (points = []));
          points.push([Math.round(sample.t / 1000), size]);
        }
      }
      const view: HistoryView = {
        fromSeconds: fromSecond,
        toSeconds: Math.floor(now / 1000),
        series: [...series].sort(([a], [b]) => (a < b ? -1 : 1)).map(([shard, points]) => ({ shard, points })),
      };
      viewCache = { version, from: fromSecond, view };
      return view;
    },
    get version() {
      return version;
    },
    get samples() {
      return count;
    },
  };
}
