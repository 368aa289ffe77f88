import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address } from '@ton/core';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_PIECES } from '../../src/features/index.js';
import { loadConfig } from '../../src/config/load.js';
import type { WatchedWallet } from '../../src/domain/config.js';
import { configLoadDeps } from '../../src/config/source.js';

/**
 * The watchlist as a start reads it (the config's own reader, a file's bytes, our address
 * codec) against the plainest reading there is: the text split into lines, cut at '#' and
 * ',', each address parsed by @ton/core. Same raw keys, same names, same thresholds, for a
 * watchlist of every form, and again after the file is edited between two starts.
 */

const dir = mkdtempSync(join(tmpdir(), 'tonwatch-forms-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hashOf = (i: number): string => createHash('sha256').update(`forms:${i}`).digest('hex');
const address = (i: number, workchain = i % 9 === 0 ? -1 : 0): Address => Address.parseRaw(`${workchain}:${hashOf(i)}`);

/** Line `i` of a watchlist file, in one of the forms users write (chosen by i), named or not. */
function lineOf(i: number): string {
  const a = address(i);
  const forms = [
    a.toString({ urlSafe: true, bounceable: true }),
    a.toString({ urlSafe: true, bounceable: false }),
    a.toString({ urlSafe: false, bounceable: true }),
    a.toString({ urlSafe: true, bounceable: true, testOnly: true }),
    a.toString({ urlSafe: true, bounceable: false, testOnly: true }),
    a.toRawString().toUpperCase(),
    a.toRawString(),
    `${a.workChain === -1 ? '-01' : '00'}:${a.hash.toString('hex')}`,
    `  ${a.toString({ urlSafe: true, bounceable: true })}\t`,
  ];
  const text = forms[i % forms.length] as string;
  const names = ['', `,deposit-${i}`, `, spaced name ${i} `, `,ünïcode-${i}`, `,a,b,${i}`, `,name-${i} # with a comment`];
  return `${text}${names[i % names.length] as string}`;
}

function fileText(lines: number, edit = (i: number): string | null => lineOf(i)): string {
  const out = ['# exported from custody', '', '   # indented comment'];
  for (let i = 0; i < lines; i += 1) {
    const line = edit(i);
    if (line !== null) out.push(line);
    if (i % 17 === 0) out.push('');
    if (i % 23 === 0) out.push(`# group ${i}`);
  }
  // CRLF ends for part of the file, as an editor on another system leaves them.
  return out.map((l, i) => (i % 5 === 0 ? `${l}\r` : l)).join('\n');
}

/** The plain reading: per line, cut at '#', trimmed, cut at the first ',', the address read by @ton/core. */
function plainReading(text: string): { raw: string; name: string }[] {
  return text.split('\n').flatMap((line) => {
    const content = (line.split('#')[0] ?? '').trim();
    if (content === '') return [];
    const [written = '', ...rest] = content.split(',');
    const trimmed = written.trim();
    const parsed = Address.parse(trimmed);
    const raw = `${parsed.workChain}:${parsed.hash.toString('hex').toUpperCase()}`;
    const name = rest.join(',').trim();
    return [{ raw, name: name === '' ? trimmed : name }];
  });
}

const INLINE = 40;
/** A config with `INLINE` user-friendly inline entries, each with a threshold, and the file. */
function writeConfig(text: string): string {
  const inline = Array.from({ length: INLINE }, (_, i) => {
    const friendly = address(1000 + i).toString({ urlSafe: true, bounceable: i % 2 === 0 });
    return `  - { address: "${friendly}", name: hot-${i}, labels: { team: payments }, minBalanceTons: ${(i * 7.5).toFixed(1)} }`;
  });
  writeFileSync(join(dir, 'watch.txt'), text);
  writeFileSync(join(dir, 'tonwatch.yml'), ['watchlistFiles: [watch.txt]', 'watchlist:', ...inline, ''].join('\n'));
  return join(dir, 'tonwatch.yml');
}

const deps = configLoadDeps({ env: {}, cwd: dir, pieces: CONFIG_PIECES });
const start = async (text: string): Promise<readonly WatchedWallet[]> => (await loadConfig(writeConfig(text), deps)).config.watchlist;

function expected(text: string): { raw: string; name: string; minBalanceTons: number | undefined }[] {
  const inline = Array.from({ length: INLINE }, (_, i) => ({
    raw: `${address(1000 + i).workChain}:${hashOf(1000 + i).toUpperCase()}`,
    name: `hot-${i}`,
    minBalanceTons: Number((i * 7.5).toFixed(1)),
  }));
  return [...inline, ...plainReading(text).map((w) => ({ ...w, minBalanceTons: undefined }))];
}

const shape = (watchlist: readonly WatchedWallet[]) => watchlist.map((w) => ({ raw: w.raw, name: w.name, minBalanceTons: w.minBalanceTons }));

describe('a watchlist of every form, read at start', () => {
  it('gives the raw keys, names and thresholds of the plain reading', async () => {
    const text = fileText(540);
    const watchlist = await start(text);
    expect(watchlist).toHaveLength(INLINE + 540);
    expect(shape(watchlist)).toEqual(expected(text));
  });

  it('reads a file edited between two starts as the plain reading of its new content', async () => {
    const before = fileText(300);
    expect(shape(await start(before))).toEqual(expected(before));
    // Lines removed, renamed, written in another form, and new ones in place of old ones.
    const after = fileText(300, (i) =>
      i % 11 === 0 ? null : i % 7 === 0 ? lineOf(i + 5000) : i % 5 === 0 ? `${address(i).toRawString()},renamed-${i}` : lineOf(i),
    );
    const watchlist = await start(after);
    expect(shape(watchlist)).toEqual(expected(after));
    expect(watchlist.find((w) => w.name === 'renamed-5')?.raw).toBe(`0:${hashOf(5).toUpperCase()}`);
  });
});
