import { describe, expect, it } from 'vitest';
import { buildWatchlist, originText, parseWatchlistFile } from '../../src/config/watchlist.js';
import type { ConfigProblem } from '../../src/config/problems.js';
import { createRandom } from '../../src/sim/random.js';
import { parseAddress } from '../../src/ton/address.js';
import { rawAddress } from '../helpers/addresses.js';

/** The file format as plainly as it can be read: split into lines, cut at '#', trim, cut at ','. */
function reference(file: string, text: string): { sources: { line: string; address: string; name?: string }[]; problems: ConfigProblem[] } {
  const sources: { line: string; address: string; name?: string }[] = [];
  const problems: ConfigProblem[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const content = (line.split('#', 1)[0] ?? '').trim();
    if (content === '') return;
    const comma = content.indexOf(',');
    const address = (comma === -1 ? content : content.slice(0, comma)).trim();
    const name = comma === -1 ? '' : content.slice(comma + 1).trim();
    if (!parseAddress(address).ok) {
      problems.push({ path: `${file}:${index + 1}`, message: expect.stringContaining(`invalid address "${address}"`) });
      return;
    }
    sources.push({ line: `${file}:${index + 1}`, address, ...(name === '' ? {} : { name }) });
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
        parsed.map((s) => ({ line: originText(s.origin), address: s.entry.address, ...(s.entry.name === undefined ? {} : { name: s.entry.name }) })),
        text,
      ).toEqual(expected.sources);
    }
  });

  it('freezes each watched wallet and its labels as it is made', () => {
    const wallets = buildWatchlist(
      [
        { entry: { address: rawAddress(1), labels: { team: 'a' } }, origin: 'watchlist.0' },
        { entry: { address: rawAddress(1), labels: { tier: 'hot' }, name: 'late' }, origin: { file: 'w.txt', line: 4 } },
      ],
      [],
    );
    expect(wallets).toHaveLength(1);
    expect(Object.isFrozen(wallets[0])).toBe(true);
    expect(Object.isFrozen(wallets[0]?.labels)).toBe(true);
    expect(wallets[0]).toMatchObject({ name: 'late', labels: { team: 'a', tier: 'hot' } });
  });
});
