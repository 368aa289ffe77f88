import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { WatchedWallet } from '../../src/domain/config.js';
import type { JettonRecord, JettonsSnapshot } from '../../src/domain/jettons.js';
import { createJettonSeriesRenderer, type JettonSeriesInput } from '../../src/features/jettons/series.js';
import { jettonRecord } from '../helpers/fixtures.js';
import { createCompressor, type Compressor, type GzipPart } from '../../src/metrics/gzip-members.js';

const OWNER = `0:${'AB'.repeat(32)}`;
const MASTER = `0:${'CD'.repeat(32)}`;
const watchlist: WatchedWallet[] = [{ raw: OWNER, name: 'hot', labels: {}, minBalanceTons: undefined }];
const record = (balance: string, fetchedAt: number): JettonRecord => jettonRecord(`0:${'EF'.repeat(32)}`, balance, fetchedAt);
const input = (balance: string, fetchedAt = 1_000): JettonSeriesInput => ({
  snapshot: { jettons: new Map([['USDT', new Map([[OWNER, record(balance, fetchedAt)]])]]), fetchedAt } satisfies JettonsSnapshot,
  jettons: [{ name: 'USDT', master: MASTER, masterAsWritten: MASTER, decimals: 6 }],
  watchJettons: ['USDT'],
  watchlist,
  maxAgeSeconds: 60,
});
const textOf = (parts: readonly GzipPart[]): string => gunzipSync(Buffer.concat(parts.map((p) => p.gzip))).toString();

/** A compressor that counts its calls and fails while `failing`. */
function counting(): Compressor & { calls: number; failing: boolean } {
  const real = createCompressor();
  const counter = {
    calls: 0,
    failing: false,
    compress: (buffer: Buffer) => real.compress(buffer),
    part: async (text: Buffer) => {
      counter.calls += 1;
      if (counter.failing) throw new Error('no memory for a deflate state');
      return real.part(text);
    },
  };
  return counter;
}

describe('the jetton series renderer', () => {
  it('is kept compressed only, and compressed again only when its text changes', async () => {
    const compressor = counting();
    const block = createJettonSeriesRenderer(compressor);
    let shown = input('1234567');
    const first = await block(() => shown, 2_000);
    expect(textOf(first)).toContain('ton_jetton_balance{address="0:ABAB');
    expect(textOf(first)).toContain('jetton="USDT"} 1.234567\n');
    expect(first.reduce((sum, part) => sum + part.length, 0)).toBe(textOf(first).length);
    // The same input: nothing rendered or compressed.
    expect(await block(() => shown, 3_000)).toBe(first);
    // A new snapshot saying the same (a cycle in which nothing changed): rendered, not compressed again.
    shown = input('1234567', 1_500);
    const again = await block(() => shown, 4_000);
    expect(again).not.toBe(first);
    expect(again[1]).toBe(first[1]);
    expect(compressor.calls).toBe(1);
    // A change is compressed.
    shown = input('7654321', 5_000);
    expect(textOf(await block(() => shown, 6_000))).toContain('jetton="USDT"} 7.654321\n');
    expect(compressor.calls).toBe(2);
    // Past the record's freshness its balance goes, with the same input.
    expect(textOf(await block(() => shown, 5_000 + 61_000))).not.toContain('ton_jetton_balance{');
  });

  it('compresses again only the block of a thousand owners whose lines changed, and writes the same text as one render', async () => {
    const owners: WatchedWallet[] = Array.from({ length: 2_500 }, (_, i) => ({
      raw: `0:${i.toString(16).padStart(64, '0')}`,
      name: `w${i}`,
      labels: {},
      minBalanceTons: undefined,
      ...(i % 2 === 0 ? { minJettonBalance: { USDT: 5 } } : {}),
    }));
    const many = (changed: string): JettonSeriesInput => ({
      ...input('0'),
      snapshot: {
        jettons: new Map([['USDT', new Map(owners.map((o, i) => [o.raw, record(i === 1_700 ? changed : String(i), 1_000)]))]]),
        fetchedAt: 1_000,
      },
      watchlist: owners,
    });
    const compressor = counting();
    const block = createJettonSeriesRenderer(compressor);
    const first = await block(() => many('1'), 2_000);
    // Three blocks of balances, three of minimums.
    expect(compressor.calls).toBe(6);
    const text = textOf(first);
    expect(text.match(/^# TYPE ton_jetton_balance gauge$/gm)).toHaveLength(1);
    expect(text.match(/^# TYPE ton_jetton_min_balance gauge$/gm)).toHaveLength(1);
    expect(text.match(/^ton_jetton_balance\{/gm)).toHaveLength(2_500);
    expect(text.match(/^ton_jetton_min_balance\{/gm)).toHaveLength(1_250);
    // Owners in watchlist order, every balance line before every minimum's.
    const order = [...text.matchAll(/^ton_jetton_balance\{address="([^"]+)"/gm)].map((m) => m[1]);
    expect(order).toEqual(owners.map((o) => o.raw));
    expect(text.indexOf('ton_jetton_min_balance{')).toBeGreaterThan(text.lastIndexOf('ton_jetton_balance{'));

    const next = await block(() => many('9999999'), 3_000);
    // Owner 1,700 is in the second block: its balances only are compressed again.
    expect(compressor.calls).toBe(7);
    expect(textOf(next)).toContain(`{address="${owners[1_700]?.raw}",name="w1700",jetton="USDT"} 9.999999\n`);
    expect(textOf(next)).toBe(textOf(await createJettonSeriesRenderer(createCompressor())(() => many('9999999'), 3_000)));
    expect(next.filter((part) => first.includes(part))).toHaveLength(next.length - 1);
  });

  it('answers scrapes that come during a render with that render', async () => {
    const compressor = counting();
    const block = createJettonSeriesRenderer(compressor);
    const shown = input('77');
    const [a, b, c] = await Promise.all([block(() => shown, 2_000), block(() => shown, 2_000), block(() => shown, 2_001)]);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(compressor.calls).toBe(1);
  });

  it('tries again at the next scrape after a compression failed', async () => {
    const compressor = counting();
    const block = createJettonSeriesRenderer(compressor);
    const shown = input('42');
    compressor.failing = true;
    await expect(block(() => shown, 2_000)).rejects.toThrow('no memory');
    compressor.failing = false;
    expect(textOf(await block(() => shown, 2_500))).toContain('jetton="USDT"} 0.000042\n');
    expect(compressor.calls).toBe(2);
  });
});
