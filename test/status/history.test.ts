import { describe, expect, it } from 'vitest';
import { createQueueHistory, HISTORY_MS, MAX_SAMPLES } from '../../src/features/queue-sizes/history.js';
import { pressureLevel } from '../../src/features/queue-sizes/status.js';
import { formatTons } from '../../src/features/wallets/status.js';
import type { QueueSizesSnapshot } from '../../src/features/queue-sizes/types.js';

/** The status page's history ring and the model's small rules. */

const HASH = 'A'.repeat(43) + '=';
const snapshot = (t: number, shards: [number, string, number][]): QueueSizesSnapshot => ({
  fetchedAt: t,
  upstream: 'sim',
  extMsgQueueSizeLimit: 8000,
  shards: shards.map(([workchain, shard, size]) => ({ workchain, shard, seqno: 1, rootHash: HASH, fileHash: HASH, size })),
});
const WHOLE = '-9223372036854775808';
const LEFT = '4611686018427387904'; // 0x4000000000000000
const RIGHT = '-4611686018427387904'; // 0xC000000000000000

describe('queue history', () => {
  it('keeps one point per poll per shard; a split ends one series and starts two', () => {
    const history = createQueueHistory();
    history.record(snapshot(1_000_000, [[0, WHOLE, 10]]));
    history.record(snapshot(1_005_000, [[0, WHOLE, 20]]));
    history.record(snapshot(1_005_000, [[0, WHOLE, 99]])); // the same poll again: ignored
    history.record(
      snapshot(1_010_000, [
        [0, LEFT, 5],
        [0, RIGHT, 7],
      ]),
    );
    const view = history.view(1_011_000);
    expect(view.series).toEqual([
      { shard: '0:4000000000000000', points: [[1010, 5]] },
      {
        shard: '0:8000000000000000',
        points: [
          [1000, 10],
          [1005, 20],
        ],
      },
      { shard: '0:C000000000000000', points: [[1010, 7]] },
    ]);
    expect(history.samples).toBe(3);
  });

  it('holds at most MAX_SAMPLES polls and nothing older than an hour', () => {
    const history = createQueueHistory();
    for (let i = 0; i < MAX_SAMPLES + 500; i += 1) history.record(snapshot(i * 100, [[0, WHOLE, i]]));
    expect(history.samples).toBe(MAX_SAMPLES);
    const now = (MAX_SAMPLES + 499) * 100;
    const points = history.view(now).series[0]?.points ?? [];
    expect(points).toHaveLength(MAX_SAMPLES);
    expect(points[0]?.[1]).toBe(500);
    const later = history.view(now + HISTORY_MS - 100 * 100);
    expect(later.series[0]?.points.length).toBeLessThan(200);
  });
});

describe('status model rules', () => {
  it('colours pressure at the alert thresholds: above 0.5 warning, above 0.8 critical', () => {
    expect([null, 0, 0.5, 0.51, 0.8, 0.81, 1.3].map(pressureLevel)).toEqual(['ok', 'ok', 'ok', 'warning', 'warning', 'critical', 'critical']);
  });

  it('formats nanotons as TON without losing digits', () => {
    expect(['0', '1', '1000000000', '837347747416', '-5000000001', '123456789012345678901'].map(formatTons)).toEqual([
      '0',
      '0.000000001',
      '1',
      '837.347747416',
      '-5.000000001',
      '123456789012.345678901',
    ]);
  });
});
