import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { WatchedWallet } from '../../src/domain/config.js';
import type { JettonRecord, JettonsSnapshot } from '../../src/domain/jettons.js';
import { createJettonSeriesBlock, type JettonSeriesInput } from '../../src/features/jettons/series.js';
import { createCompressor, type Compressor, type GzipPart } from '../../src/metrics/gzip-members.js';

const OWNER = `0:${'AB'.repeat(32)}`;
const MASTER = `0:${'CD'.repeat(32)}`;
const watchlist: WatchedWallet[] = [{ raw: OWNER, name: 'hot', labels: {}, minBalanceTons: undefined }];
const record = (balance: string, fetchedAt: number): JettonRecord => ({
  wallet: `0:${'EF'.repeat(32)}`,
  balance,
  lastTransactionLt: '1',
  codeHash: null,
  dataHash: null,
  fetchedAt,
  upstream: 'sim',
});
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

describe('the jetton series block', () => {
  it('is kept compressed only, and compressed again only when its text changes', async () => {
    const compressor = counting();
    const block = createJettonSeriesBlock(compressor);
    let shown = input('1234567');
    const first = await block(() => shown, 2_000);
    expect(textOf(first)).toContain('ton_jetton_balance{address="0:ABAB');
    expect(textOf(first)).toContain('jetton="USDT"} 1.234567\n');
    expect(first[0]?.length).toBe(textOf(first).length);
    // The same input: nothing rendered or compressed.
    expect((await block(() => shown, 3_000))[0]).toBe(first[0]);
    // A new snapshot saying the same (a cycle in which nothing changed): rendered, not compressed again.
    shown = input('1234567', 1_500);
    expect((await block(() => shown, 4_000))[0]).toBe(first[0]);
    expect(compressor.calls).toBe(1);
    // A change is compressed.
    shown = input('7654321', 5_000);
    expect(textOf(await block(() => shown, 6_000))).toContain('jetton="USDT"} 7.654321\n');
    expect(compressor.calls).toBe(2);
    // Past the record's freshness its balance goes, with the same input.
    expect(textOf(await block(() => shown, 5_000 + 61_000))).not.toContain('ton_jetton_balance{');
  });

  it('tries again at the next scrape after a compression failed', async () => {
    const compressor = counting();
    const block = createJettonSeriesBlock(compressor);
    const shown = input('42');
    compressor.failing = true;
    await expect(block(() => shown, 2_000)).rejects.toThrow('no memory');
    compressor.failing = false;
    expect(textOf(await block(() => shown, 2_500))).toContain('jetton="USDT"} 0.000042\n');
    expect(compressor.calls).toBe(2);
  });
});
