import { describe, expect, it } from 'vitest';
import { compressPart, inflateParts, type GzipPart } from '../../src/metrics/gzip-members.js';
import { createRandom } from '../../src/sim/random.js';

/** The members kept for /metrics, and the identity text made back from them. */

describe('gzip members', () => {
  it('gives back the text of each part, in order, leaving out empty ones', async () => {
    const random = createRandom(5);
    for (let round = 0; round < 20; round += 1) {
      const texts = Array.from({ length: random.int(0, 12) }, (_, i) =>
        random.chance(0.2) ? '' : `line ${round}.${i} ${'x'.repeat(random.int(1, 3000))}\n`.repeat(random.int(1, 4)),
      );
      const parts: GzipPart[] = await Promise.all(texts.map((text) => compressPart(Buffer.from(text))));
      const out: string[] = [];
      for await (const text of inflateParts(parts)) out.push(text.toString());
      expect(out, `round ${round}`).toEqual(texts.filter((text) => text !== ''));
      parts.forEach((part, i) => expect(part.length).toBe(Buffer.byteLength(texts[i] ?? '')));
    }
  });

  it('keeps an empty text as no member at all', async () => {
    expect((await compressPart(Buffer.alloc(0))).gzip).toHaveLength(0);
    const out: Buffer[] = [];
    for await (const text of inflateParts([await compressPart(Buffer.alloc(0))])) out.push(text);
    expect(out).toEqual([]);
  });
});
