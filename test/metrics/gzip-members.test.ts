import { describe, expect, it } from 'vitest';
import { createCompressor, inflateParts, type GzipPart } from '../../src/metrics/gzip-members.js';

const compressor = createCompressor();
const compressPart = (text: Buffer) => compressor.part(text);
import { createRandom } from '../../src/sim/random.js';

/** The members kept for /metrics, and the identity text made back from them. */

describe('gzip members', () => {
  it('gives back the text of the parts, in order, empty ones included', async () => {
    const random = createRandom(5);
    for (let round = 0; round < 20; round += 1) {
      const texts = Array.from({ length: random.int(0, 12) }, (_, i) =>
        random.chance(0.2) ? '' : `line ${round}.${i} ${'x'.repeat(random.int(1, 3000))}\n`.repeat(random.int(1, 4)),
      );
      const parts: GzipPart[] = await Promise.all(texts.map((text) => compressPart(Buffer.from(text))));
      const out: Buffer[] = [];
      for await (const text of inflateParts(parts)) out.push(text);
      expect(Buffer.concat(out).toString(), `round ${round}`).toBe(texts.join(''));
      parts.forEach((part, i) => expect(part.length).toBe(Buffer.byteLength(texts[i] ?? '')));
    }
  });

  it('keeps an empty text as no member at all, and gives nothing back for it', async () => {
    expect((await compressPart(Buffer.alloc(0))).gzip).toHaveLength(0);
    const out: Buffer[] = [];
    for await (const text of inflateParts([await compressPart(Buffer.alloc(0))])) out.push(text);
    expect(out).toEqual([]);
  });

  it('gives back the text of many parts in chunks of bounded size, not one buffer a part', async () => {
    const texts = Array.from({ length: 50 }, (_, i) => `ton_wallet_balance_tons{address="${i}"} ${i}\n`.repeat(4000));
    const parts = await Promise.all(texts.map((text) => compressPart(Buffer.from(text))));
    const chunks: Buffer[] = [];
    for await (const chunk of inflateParts(parts)) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe(texts.join(''));
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(64 * 1024);
  });

  it('stops decompressing when the reader leaves early', async () => {
    const parts = await Promise.all(Array.from({ length: 20 }, (_, i) => compressPart(Buffer.from(`part ${i}\n`.repeat(50_000)))));
    const reader = inflateParts(parts);
    const first = await reader.next();
    expect(first.done).toBe(false);
    await reader.return(undefined);
    expect((await reader.next()).done).toBe(true);
  });

  it('fails the reader on a damaged member instead of ending early', async () => {
    const good = await compressPart(Buffer.from('fine\n'));
    const damaged: GzipPart = { gzip: Buffer.concat([good.gzip.subarray(0, 12), Buffer.from('not deflate data at all')]), length: 40 };
    const read = async (): Promise<void> => {
      for await (const chunk of inflateParts([good, damaged])) void chunk;
    };
    await expect(read()).rejects.toThrow();
  });
});
