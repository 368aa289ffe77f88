import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { removeStaleTemps, writeAtomically } from '../../src/snapshot/atomic-file.js';

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
