import { describe, expect, it } from 'vitest';
import { measuredInFreshNode } from '../helpers/process.js';

/**
 * What a polled wallet's record costs the heap, as the poll makes it from a parsed answer:
 * in a fresh Node process on the built code (with the collector at hand), 100,000 states
 * matched against the addresses asked, with the daemon's interning, and the heap measured
 * with the records kept. The answer's text and parsed objects are dropped; the addresses
 * asked (the watchlist's) are measured as held before.
 */

const dist = (path: string) => JSON.stringify(new URL(`../../dist/${path}`, import.meta.url).href);

function bytesPerRecord(): number {
  const script = `
const { matchWalletAnswer } = await import(${dist('accounts/wallet-mapping.js')});
const { decodeWalletStates } = await import(${dist('upstream/http/wallet-states.js')});
const { createInterning } = await import(${dist('domain/interning.js')});
const total = 100_000;
// Flat strings, as a parsed watchlist holds them (a concatenation would be flattened by the
// first lookup, and its parts freed, while the records are measured).
const rawOf = (i) => '0:' + ((i * 2654435761) >>> 0).toString(16).toUpperCase().padStart(8, '0') + i.toString(16).toUpperCase().padStart(56, '0');
const asked = Array.from({ length: total }, (_, i) => Buffer.from(rawOf(i), 'latin1').toString('latin1'));
const hash = (i) => Buffer.alloc(32, i).toString('base64');
function answered() {
  const wallets = asked.map((address, i) => ({
    address, balance: String(1_000_000_000 * (i + 1) + 123), code_hash: hash(7), is_wallet: true,
    last_transaction_hash: hash(i), last_transaction_lt: String(50_000_000_000_000 + i), seqno: i % 5000,
    status: 'active', wallet_id: 698983191, wallet_type: 'wallet v4 r2',
  }));
  // Parsed from text, as the client reads it: every address in the answer is a string of its own.
  const decoded = decodeWalletStates(JSON.parse(JSON.stringify({ wallets, address_book: {}, metadata: {} })));
  if (!decoded.success) throw decoded.error;
  return decoded.data;
}
// Collected, and again once the collector's helpers have finished with the pages freed.
const heap = async () => {
  globalThis.gc();
  await new Promise((resolve) => setTimeout(resolve, 100));
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};
const interning = createInterning();
const before = await heap();
const { found } = matchWalletAnswer(asked, answered(), { fetchedAt: 1, upstream: 'sim', interning });
const after = await heap();
if (found.size !== total) throw new Error('found ' + found.size);
console.log(JSON.stringify({ perRecord: (after - before) / total }));
globalThis.kept = [found, asked];
`;
  return measuredInFreshNode<{ perRecord: number }>(script).perRecord;
}

describe('polled wallet records, memory', () => {
  it("hold the watchlist's copy of each address, not the answer's", () => {
    // ~228 B a record, its map entry included; with the answer's own 66-character address
    // kept in each state, ~316 B.
    expect(bytesPerRecord()).toBeLessThan(270);
  });
});
