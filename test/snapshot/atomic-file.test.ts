import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { dropReadsAhead, readAhead, readIfPresent, readWhole, removeStaleTemps, writeAtomically } from '../../src/snapshot/atomic-file.js';

describe('writeAtomically with content in parts', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-atomic-'));
  });

  /** Bytes written so far to the one temp file in `dir`. */
  const tempSize = (): number => {
    const temps = readdirSync(dir).filter((name) => name.endsWith('.tmp'));
    expect(temps).toHaveLength(1);
    return statSync(join(dir, temps[0] as string)).size;
  };

  it('asks for each part only once the one before is written, and writes them in order', async () => {
    const seen: number[] = [];
    function* parts(): Generator<Buffer> {
      for (const text of ['first\n', 'second\n', 'third\n']) {
        seen.push(tempSize());
        yield Buffer.from(text);
      }
    }
    const file = join(dir, 'w.json');
    await writeAtomically(file, parts());
    expect(seen).toEqual([0, 6, 13]);
    expect(await readFile(file, 'utf8')).toBe('first\nsecond\nthird\n');
    expect(await readdir(dir)).toEqual(['w.json']);
  });

  it('makes files only their owner may read (they hold names, addresses and balances), in a folder only the owner enters when it makes one, and a file that was readable by others is not after it is written', async () => {
    const file = join(dir, 'private', 'snapshot.json');
    await writeAtomically(file, 'x\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'private')).mode & 0o777).toBe(0o700);
    const shared = join(dir, 'shared.json');
    await writeFile(shared, 'old\n', { mode: 0o644 });
    await writeAtomically(shared, 'new\n');
    expect(statSync(shared).mode & 0o777).toBe(0o600);
  });

  it('leaves the previous file and no temp file when making a part fails', async () => {
    const file = join(dir, 'w.json');
    await writeFile(file, 'previous\n');
    function* parts(): Generator<Buffer> {
      yield Buffer.from('new\n');
      throw new Error('cannot encode');
    }
    await expect(writeAtomically(file, parts())).rejects.toThrow('cannot encode');
    expect(await readFile(file, 'utf8')).toBe('previous\n');
    expect(await readdir(dir)).toEqual(['w.json']);
  });
});

describe('stale temp files', () => {
  it('removes what a killed write of the file left, and nothing else', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-temps-'));
    const file = join(dir, 'snapshot.json');
    const keep = [
      'snapshot.json',
      '.snapshot.json.tmp',
      '.snapshot.json.zzzzzzzz.tmp',
      '.other.json.0badcafe.tmp',
      'notes.0badcafe.tmp',
      '.snapshot.jsonx.0badcafe.tmp',
    ];
    for (const name of [...keep, '.snapshot.json.0badcafe.tmp', '.snapshot.json.12345678.tmp']) await writeFile(join(dir, name), 'x');
    expect((await removeStaleTemps(file)).sort()).toEqual(['.snapshot.json.0badcafe.tmp', '.snapshot.json.12345678.tmp']);
    expect((await readdir(dir)).sort()).toEqual([...keep].sort());
    expect(await removeStaleTemps(join(dir, 'missing', 'snapshot.json'))).toEqual([]);
  });
});

describe('reading a whole file', () => {
  it('reads a file of no stated size to its end (a pipe, a file of /proc)', async () => {
    expect((await readWhole('/proc/self/status')).toString()).toMatch(/^Name:/);
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-read-whole-'));
    await writeFile(join(dir, 'empty'), '');
    expect((await readWhole(join(dir, 'empty'))).length).toBe(0);
  });
});

describe('reading ahead', () => {
  it('gives what was read ahead while the file is unchanged, and reads again one replaced, made or removed since', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-read-ahead-'));
    const [kept, replaced, made, removed] = ['kept', 'replaced', 'made', 'removed'].map((name) => join(dir, name)) as [string, string, string, string];
    await writeFile(kept, 'kept');
    await writeFile(replaced, 'before');
    await writeFile(removed, 'gone soon');
    readAhead([kept, replaced, made, removed]);
    // Replaced as tonwatch writes its files: a new inode renamed over the old one.
    await writeAtomically(replaced, 'after');
    await writeFile(made, 'new');
    await writeAtomically(removed, '');
    await (await import('node:fs/promises')).rm(removed);
    const text = async (file: string) => {
      const read = await readIfPresent(file);
      return read.kind === 'bytes' ? read.bytes.toString() : read.kind;
    };
    expect(await text(kept)).toBe('kept');
    expect(await text(replaced)).toBe('after');
    expect(await text(made)).toBe('new');
    expect(await text(removed)).toBe('absent');
    // Each read ahead is taken once: the next read is a read.
    await writeFile(kept, 'changed in place, same size');
    expect(await text(kept)).toBe('changed in place, same size');
  });

  it('lets go of what nothing took', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-read-ahead-'));
    const file = join(dir, 'f');
    await writeFile(file, 'one');
    readAhead([file]);
    dropReadsAhead();
    await writeFile(file, 'two');
    expect((await readWhole(file)).toString()).toBe('two');
    const read = await readIfPresent(file);
    expect(read.kind === 'bytes' && read.bytes.toString()).toBe('two');
  });
});
