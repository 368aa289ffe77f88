import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { readCapped } from '../../src/upstream/http/response-body.js';

const bodyOf = (chunks: Buffer[]) => Readable.from(chunks) as unknown as Dispatcher.ResponseData['body'];

describe('readCapped', () => {
  it('decodes a character split between chunks, as decoding the whole body would', async () => {
    const whole = Buffer.from('{"name":"Привет, 世界 🙂"}', 'utf8');
    for (let cut = 1; cut < whole.length; cut += 1) {
      const text = await readCapped(bodyOf([whole.subarray(0, cut), whole.subarray(cut)]), 1000);
      expect(text).toBe(whole.toString('utf8'));
    }
  });

  it('keeps what Buffer#toString keeps: a byte-order mark, and U+FFFD for bytes that are not UTF-8', async () => {
    const whole = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":'), Buffer.from([0xff, 0xfe]), Buffer.from('1}')]);
    expect(await readCapped(bodyOf([whole.subarray(0, 2), whole.subarray(2, 7), whole.subarray(7)]), 1000)).toBe(whole.toString('utf8'));
  });

  it('refuses a body larger than the cap, and stops reading it', async () => {
    const body = bodyOf([Buffer.alloc(600, 0x61), Buffer.alloc(600, 0x61), Buffer.alloc(600, 0x61)]);
    await expect(readCapped(body, 1000)).rejects.toThrow('response body larger than 1000 bytes');
    expect((body as unknown as Readable).destroyed).toBe(true);
  });
});
