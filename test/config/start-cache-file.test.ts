import { deserialize, serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { encodeCache, readCache, type Kept } from '../../src/config/start-cache-file.js';
import type { FileColumns } from '../../src/config/watchlist.js';

const CONFIG = '/etc/tonwatch/tonwatch.yml';
const VERSION = '1.0.0';

/** `count` entries: raw keys of both workchains, names short, long, empty and not ASCII. */
function columnsOf(count: number): FileColumns {
  const raws: string[] = [];
  const names: string[] = [];
  for (let i = 0; i < count; i += 1) {
    raws.push(`${i % 7 === 0 ? -1 : 0}:${i.toString(16).toUpperCase().padStart(64, '0')}`);
    names.push(i % 5 === 0 ? '' : i % 5 === 1 ? `w${i}` : i % 5 === 2 ? `deposit wallet of customer ${i}` : i % 5 === 3 ? `кошелёк ${i} 💎` : `x`);
  }
  return { raws, names, lines: Uint32Array.from(raws, (_, i) => i * 2 + 3), named: Uint8Array.from(raws, (_, i) => i % 2) };
}

async function encoded(kept: Kept): Promise<Buffer> {
  const frames: Uint8Array[] = [];
  for await (const frame of encodeCache(CONFIG, VERSION, kept)) frames.push(frame);
  return Buffer.concat(frames);
}

/** The frames of a cache file, each deserialized. */
function framesOf(bytes: Buffer): unknown[] {
  const values: unknown[] = [];
  for (let at = 0; at < bytes.length;) {
    const length = bytes.readUInt32LE(at);
    values.push(deserialize(bytes.subarray(at + 4, at + 4 + length)));
    at += 4 + length;
  }
  return values;
}

function framed(values: readonly unknown[]): Buffer {
  return Buffer.concat(
    values.map((value) => {
      const body = serialize(value);
      const length = Buffer.alloc(4);
      length.writeUInt32LE(body.length);
      return Buffer.concat([length, body]);
    }),
  );
}

describe("the start cache's file", () => {
  it('reads back every key, name, line and flag of a file kept in several parts', async () => {
    const columns = columnsOf(40_000);
    const kept: Kept = {
      document: null,
      files: new Map([['/w/a.txt', { digest: 'd1', source: null, columns }]]),
      readAhead: ['/data/snapshot.json'],
      early: null,
    };
    const read = readCache(await encoded(kept), CONFIG, VERSION);
    const back = read.files.get('/w/a.txt')?.columns;
    expect(back?.raws).toEqual(columns.raws);
    expect(back?.names).toEqual(columns.names);
    expect(Array.from(back?.lines ?? [])).toEqual(Array.from(columns.lines));
    expect(Array.from(back?.named ?? [])).toEqual(Array.from(columns.named));
    expect(read.readAhead).toEqual(['/data/snapshot.json']);
  });

  it("keeps the document's bytes apart from the file's buffer, which is not held after it is read", async () => {
    const document = {
      digest: 'd0',
      bytes: serialize({ listen: { port: 9 } }),
      entries: serialize([{ address: 'a' }]),
      parsed: { key: 'k', bytes: serialize({ x: 1 }) },
    };
    const kept: Kept = { document, files: new Map([['/w/a.txt', { digest: 'd1', source: null, columns: columnsOf(1000) }]]), readAhead: [], early: null };
    const file = await encoded(kept);
    const read = readCache(file, CONFIG, VERSION);
    const arrays = [read.document?.bytes, read.document?.entries, read.document?.parsed?.bytes];
    for (const bytes of arrays) {
      // Each its own buffer of its own length, not a view of the file's.
      expect(bytes?.buffer).not.toBe(file.buffer);
      expect(bytes?.buffer.byteLength).toBe(bytes?.byteLength);
    }
    expect(deserialize(read.document?.bytes as Uint8Array)).toEqual({ listen: { port: 9 } });
    expect(deserialize(read.document?.entries as Uint8Array)).toEqual([{ address: 'a' }]);
    expect(deserialize(read.document?.parsed?.bytes as Uint8Array)).toEqual({ x: 1 });
  });

  it('refuses a part whose columns do not add up, or hold more entries than the header says', async () => {
    const columns = columnsOf(10);
    const bytes = await encoded({ document: null, files: new Map([['/w/a.txt', { digest: 'd1', source: null, columns }]]), readAhead: [], early: null });
    const [header, part] = framesOf(bytes) as [{ files: { count: number }[] }, FileColumns];
    expect(() => readCache(framed([header, { ...part, raws: part.raws.slice(1) }]), CONFIG, VERSION)).toThrow(/does not add up/);
    expect(() => readCache(framed([header, { ...part, names: 42 }]), CONFIG, VERSION)).toThrow(/does not add up/);
    const fewer = { ...header, files: header.files.map((file) => ({ ...file, count: 9 })) };
    expect(() => readCache(framed([fewer, part]), CONFIG, VERSION)).toThrow(/does not add up/);
  });
});
