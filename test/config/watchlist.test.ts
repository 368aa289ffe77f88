import { describe, expect, it } from 'vitest';
import { buildWatchlist, originText, parseWatchlistFile, watchlistKeys } from '../../src/config/watchlist.js';
import type { ConfigProblem } from '../../src/config/problems.js';
import { createRandom } from '../../src/sim/random.js';
import { parseAddress } from '../../src/ton/address.js';
import { rawAddress } from '../helpers/addresses.js';

/** The file format as plainly as it can be read: split into lines, cut at '#', trim, cut at ','. */
interface ReadLine {
  line: string;
  raw: string;
  name: string;
  named: boolean;
}

function reference(file: string, text: string): { sources: ReadLine[]; problems: ConfigProblem[] } {
  const sources: ReadLine[] = [];
  const problems: ConfigProblem[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const content = (line.split('#', 1)[0] ?? '').trim();
    if (content === '') return;
    const comma = content.indexOf(',');
    const address = (comma === -1 ? content : content.slice(0, comma)).trim();
    const name = comma === -1 ? '' : content.slice(comma + 1).trim();
    const parsed = parseAddress(address);
    if (!parsed.ok) {
      problems.push({ path: `${file}:${index + 1}`, message: expect.stringContaining(`invalid address "${address}"`) });
      return;
    }
    // A line without a name is named by its address as written.
    sources.push({ line: `${file}:${index + 1}`, raw: parsed.value.raw, name: name === '' ? address : name, named: name !== '' });
  });
  return { sources, problems };
}

describe('watchlist files', () => {
  it('reads every line as the plain reading does: comments, blank lines, CRLF, names, bad lines', () => {
    const random = createRandom(3);
    for (let round = 0; round < 200; round += 1) {
      const lines = Array.from({ length: random.int(0, 12) }, () => {
        const address = random.chance(0.1) ? 'not-an-address' : rawAddress(random.int(1, 6));
        const pieces = [random.chance(0.2) ? '  ' : '', address];
        if (random.chance(0.4)) pieces.push(`, name ${random.int(0, 9)} `);
        if (random.chance(0.3)) pieces.push(` # note ${random.chance(0.5) ? ', with a comma' : ''}`);
        if (random.chance(0.15)) return random.chance(0.5) ? '' : '# only a comment';
        return pieces.join('');
      });
      const text = lines.join(random.chance(0.5) ? '\r\n' : '\n') + (random.chance(0.5) ? '\n' : '');
      const problems: ConfigProblem[] = [];
      const parsed = parseWatchlistFile('w.txt', text, problems);
      const expected = reference('w.txt', text);
      expect(problems, text).toEqual(expected.problems);
      expect(
        parsed.wallets.map((w, i) => ({
          line: originText({ file: parsed.file, line: parsed.lines[i] ?? 0 }),
          raw: w.raw,
          name: w.name,
          named: parsed.named[i] === 1,
        })),
        text,
      ).toEqual(expected.sources);
      parsed.wallets.forEach((w) => expect(Object.isFrozen(w)).toBe(true));
    }
  });

  it('freezes each watched wallet and its labels as it is made', () => {
    const wallets = buildWatchlist(
      [
        { entry: { address: rawAddress(1), labels: { team: 'a' } }, origin: 'watchlist.0' },
        { entry: { address: rawAddress(1), labels: { tier: 'hot' }, name: 'late' }, origin: 'watchlist.1' },
      ],
      [],
    );
    expect(wallets).toHaveLength(1);
    expect(Object.isFrozen(wallets[0])).toBe(true);
    expect(Object.isFrozen(wallets[0]?.labels)).toBe(true);
    expect(wallets[0]).toMatchObject({ name: 'late', labels: { team: 'a', tier: 'hot' } });
  });

  it("merges a later file's line into an earlier file's: the first name given wins, and the warning gives both lines", () => {
    const problems: ConfigProblem[] = [];
    const first = parseWatchlistFile('a.txt', `# list a\n\n${rawAddress(1)}\n${rawAddress(2)},two\n`, problems);
    const second = parseWatchlistFile('b.txt', `${rawAddress(1)}, one\n${rawAddress(2)},deux\n`, problems);
    const warnings: string[] = [];
    const wallets = buildWatchlist([first, second], warnings);
    expect(problems).toEqual([]);
    expect(wallets.map((w) => [w.raw, w.name])).toEqual([
      [rawAddress(1), 'one'],
      [rawAddress(2), 'two'],
    ]);
    expect(wallets.every((w) => Object.isFrozen(w))).toBe(true);
    expect(warnings).toEqual([`b.txt:1: duplicate of a.txt:3 (${rawAddress(1)}); merged`, `b.txt:2: duplicate of a.txt:4 (${rawAddress(2)}); merged`]);
    // Unmerged, a file's wallets are taken as they are.
    expect(buildWatchlist([first], [])[1]).toBe(first.wallets[1]);
  });

  it("keys a built watchlist by raw address with each wallet's place, from the index made while merging", () => {
    const problems: ConfigProblem[] = [];
    const file = parseWatchlistFile('a.txt', [1, 2, 1, 3].map((i) => rawAddress(i)).join('\n'), problems);
    const wallets = buildWatchlist([file], []);
    const keys = watchlistKeys(wallets);
    expect([...keys]).toEqual([
      [rawAddress(1), 0],
      [rawAddress(2), 1],
      [rawAddress(3), 2],
    ]);
    expect(watchlistKeys(wallets)).toBe(keys);
    // A watchlist made elsewhere is keyed on first use.
    const copy = [...wallets];
    expect([...watchlistKeys(copy)]).toEqual([...keys]);
  });
});
