import { describe, expect, it } from 'vitest';
import { measuredInFreshNode } from '../helpers/process.js';

/**
 * A parsed watchlist file does not hold on to the file's text: in a fresh Node process on
 * the built code (with the collector at hand), a file of a few addresses padded with a
 * 40 MB comment is parsed, its text dropped, and the heap measured with the wallets kept.
 */

const WATCHLIST = new URL('../../dist/config/watchlist.js', import.meta.url).href;

function heapAfterParsing(flavour: 'raw' | 'friendly'): { kept: number; heapMb: number } {
  const script = `
const { parseWatchlistFile } = await import(${JSON.stringify(WATCHLIST)});
function parse() {
  const lines = ${flavour === 'raw' ? "['0:' + 'AB'.repeat(32), '-1:' + '3'.repeat(64) + ',named one']" : "['EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N', 'UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI,x,y']"};
  // The addresses after the padding, so that they are cut from deep inside the text.
  const text = '# ' + 'p'.repeat(40_000_000) + '\\n' + lines.join('\\n') + '\\n';
  return parseWatchlistFile('w.txt', text, []).wallets;
}
const wallets = parse();
// V8 keeps the subject of the last regular expression run (RegExp.input): one string, let
// go at the next run anywhere in the process. Not what this looks for; a match clears it.
/y/.exec('y');
globalThis.gc();
await new Promise((resolve) => setTimeout(resolve, 50));
globalThis.gc();
console.log(JSON.stringify({ kept: wallets.length, heapMb: process.memoryUsage().heapUsed / 1e6 }));
`;
  return measuredInFreshNode<{ kept: number; heapMb: number }>(script);
}

const ADDRESS = new URL('../../dist/ton/address.js', import.meta.url).href;

/** The heap a watchlist of 200,000 user-friendly forms with names holds a wallet, its index included. */
function bytesPerFriendlyWallet(): number {
  const script = `
const { parseWatchlistFile, watchlistKeys } = await import(${JSON.stringify(WATCHLIST)});
const { friendlyForm } = await import(${JSON.stringify(ADDRESS)});
const wallets = 200_000;
const lines = [];
for (let i = 0; i < wallets; i += 1) {
  const raw = '0:' + ((i * 2654435761) >>> 0).toString(16).toUpperCase().padStart(8, '0') + i.toString(16).toUpperCase().padStart(56, '0');
  lines.push(friendlyForm(raw, { bounceable: i % 2 === 0, testnet: false }) + ',wallet ' + i);
}
const bytes = Buffer.from(lines.join('\\n'));
lines.length = 0;
const heap = () => (globalThis.gc(), globalThis.gc(), process.memoryUsage().heapUsed);
const before = heap();
const parsed = parseWatchlistFile('w.txt', bytes, []);
const index = watchlistKeys(parsed.wallets);
if (parsed.wallets.length !== wallets || index.size !== wallets) throw new Error('parsed ' + parsed.wallets.length);
console.log(JSON.stringify({ perWallet: (heap() - before) / wallets }));
globalThis.kept = [parsed, index];
`;
  return measuredInFreshNode<{ perWallet: number }>(script).perWallet;
}

describe('parseWatchlistFile memory', () => {
  it('keeps the raw key of a user-friendly form in one piece', () => {
    // ~169 B a wallet; ~217 B with raw keys kept as the concatenations they were made as.
    expect(bytesPerFriendlyWallet()).toBeLessThan(193);
  });

  it.each(['raw', 'friendly'] as const)('keeps no part of the text alive (%s addresses)', (flavour) => {
    const { kept, heapMb } = heapAfterParsing(flavour);
    expect(kept).toBe(2);
    // The text alone is 40 MB; a process holding nothing but the module is a few MB.
    expect(heapMb).toBeLessThan(20);
  });
});
