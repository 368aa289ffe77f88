import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createPersistedFile, type PartCodec } from '../../src/snapshot/persisted-file.js';
import { createLogSink } from '../helpers/log.js';

/**
 * A part whose writes take `writeMs` at least (its encoding waits), counting what it
 * encodes: the pacing of busyShare, seen from outside.
 */
function slowCodec(writeMs: number): { codec: PartCodec<string>; encoded: string[]; began: number[] } {
  const encoded: string[] = [];
  const began: number[] = [];
  const codec: PartCodec<string> = {
    what: 'test part',
    async *encode(part) {
      encoded.push(part);
      began.push(performance.now());
      await sleep(writeMs);
      yield Buffer.from(part);
    },
    decode: (bytes) => ({ ok: true, part: bytes.toString() }),
  };
  return { codec, encoded, began };
}

async function pacedFile(writeMs: number, busyShare: number) {
  const file = join(await mkdtemp(join(tmpdir(), 'tonwatch-paced-')), 'part.json');
  const { codec, encoded, began } = slowCodec(writeMs);
  const persisted = createPersistedFile({ file, codec, logger: createLogSink().logger, now: () => 0, busyShare });
  return { persisted, encoded, began, content: () => readFile(file, 'utf8') };
}

describe('a persisted part written at most busyShare of the time', () => {
  it('writes the first save at once, then waits its turn and writes only the newest part', async () => {
    // A write of 20 ms or more at a fifth of the time: the next begins 100 ms or more after the first.
    const { persisted, encoded, began, content } = await pacedFile(20, 0.2);
    await persisted.save('first');
    expect(await content()).toBe('first');
    const second = persisted.save('second');
    const third = persisted.save('third');
    await Promise.all([second, third]);
    expect(await content()).toBe('third');
    expect(encoded).toEqual(['first', 'third']);
    expect((began[1] ?? 0) - (began[0] ?? 0)).toBeGreaterThanOrEqual(99);
  });

  it('holds a save back while it is not its turn', async () => {
    // A write of 20 ms or more at a hundredth of the time: the next waits 2 s or more.
    const { persisted, encoded, content } = await pacedFile(20, 0.01);
    await persisted.save('first');
    void persisted.save('second');
    await sleep(300);
    expect(await content()).toBe('first');
    expect(encoded).toEqual(['first']);
  });

  it('writes a save marked now (shutdown) without waiting, in place of the one held back', async () => {
    const { persisted, encoded, content } = await pacedFile(20, 0.01);
    await persisted.save('first');
    void persisted.save('held back');
    await sleep(50);
    const started = Date.now();
    await persisted.save('last', true);
    // Far less than the 2 s or more the turn would have taken.
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(await content()).toBe('last');
    expect(encoded).toEqual(['first', 'last']);
  });

  it('cuts a write under way short for a save marked now, writes that one at once, and leaves no temp file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-paced-'));
    const file = join(dir, 'part.json');
    // 50 pieces of 10 ms or more: a write of half a second or more.
    const pieces: string[] = [];
    const codec: PartCodec<string> = {
      what: 'test part',
      async *encode(part) {
        for (let i = 0; i < 50; i += 1) {
          pieces.push(part);
          await sleep(10);
          yield Buffer.from(i === 0 ? part : '');
        }
      },
      decode: (bytes) => ({ ok: true, part: bytes.toString() }),
    };
    const log = createLogSink();
    const persisted = createPersistedFile({ file, codec, logger: log.logger, now: () => 0, busyShare: 0.1 });
    const first = persisted.save('first');
    await sleep(100);
    const started = Date.now();
    await Promise.all([persisted.save('last', true), first]);
    expect(await readFile(file, 'utf8')).toBe('last');
    // 'first' gave way after a few of its pieces; 'last' was written whole, not after 'first' ended.
    const firstPieces = pieces.filter((p) => p === 'first').length;
    expect(firstPieces).toBeLessThan(50);
    expect(pieces.filter((p) => p === 'last')).toHaveLength(50);
    expect(Date.now() - started).toBeLessThan(500 + (50 - firstPieces) * 10);
    expect(log.lines().map((l) => l['msg'])).toContain('a write under way gave way to the newest part, written at once; the previous file stays until then');
    expect(log.lines().filter((l) => (l['level'] as number) >= 50)).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(['part.json']);
  });

  it("gives up a write still encoding past a stop's limit: the previous file stays, a warning says so, no temp file", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-paced-'));
    const file = join(dir, 'part.json');
    // 50 pieces of 10 ms or more: a write of half a second or more.
    const codec: PartCodec<string> = {
      what: 'test part',
      async *encode(part) {
        for (let i = 0; i < 50; i += 1) {
          await sleep(10);
          yield Buffer.from(i === 0 ? part : '');
        }
      },
      decode: (bytes) => ({ ok: true, part: bytes.toString() }),
    };
    const log = createLogSink();
    const persisted = createPersistedFile({ file, codec, logger: log.logger, now: () => 0 });
    await persisted.save('first');
    const started = performance.now();
    await persisted.save('last', true, performance.now() + 100);
    expect(performance.now() - started).toBeLessThan(400);
    expect(await readFile(file, 'utf8')).toBe('first');
    const warned = log.lines().filter((l) => l['level'] === 40);
    expect(warned.map((l) => l['msg'])).toEqual(["the write would not end within the stop's limit: given up, the previous file stays"]);
    expect(warned[0]?.['file']).toBe(file);
    expect(log.lines().filter((l) => (l['level'] as number) >= 50)).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(['part.json']);
    // A write that ends within the limit is not given up.
    await persisted.save('in time', true, performance.now() + 60_000);
    expect(await readFile(file, 'utf8')).toBe('in time');
  });

  it('finishes a write under way when the save marked now is of the same part', async () => {
    const { persisted, encoded, content } = await pacedFile(100, 0.1);
    const first = persisted.save('only');
    await sleep(20);
    await Promise.all([persisted.save('only', true), first]);
    expect(await content()).toBe('only');
    expect(encoded).toEqual(['only']);
  });

  it('writes every save at once without busyShare', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'tonwatch-paced-')), 'part.json');
    const { codec, encoded } = slowCodec(20);
    const persisted = createPersistedFile({ file, codec, logger: createLogSink().logger, now: () => 0 });
    await persisted.save('first');
    await persisted.save('second');
    expect(encoded).toEqual(['first', 'second']);
    expect(await readFile(file, 'utf8')).toBe('second');
  });
});
