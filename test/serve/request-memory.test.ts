import { describe, expect, it } from 'vitest';
import { measuredInFreshNode } from '../helpers/process.js';

/**
 * What a request leaves behind holds none of its URL. V8 makes a substring of 13 characters
 * or more a view of the string it was cut from, so an address parsed from a query and kept
 * would keep the whole query alive. In a fresh Node process on the built code (with the
 * collector at hand), 200 requests, each padded to 1 MB and each bringing one address not
 * seen before, make walletStates keep JSON pieces for a new watched record, or read-through
 * cache a new unwatched address; the heap is measured with the handler and its caches kept.
 */

const dist = (path: string): string => new URL(`../../dist/${path}`, import.meta.url).href;

const REQUESTS = 200;

/** walletStates over REQUESTS + 1 watched records; `snapshotOfRequest` is the snapshot each request is served from. */
const walletStates = (snapshotOfRequest: string): string => `
const { createWalletStatesHandler } = await import(${JSON.stringify(dist('features/wallets/v3.js'))});
const wallets = new Map();
for (let i = 0; i <= ${REQUESTS}; i += 1) {
  const r = raw(i);
  const state = { address: r, balance: '1500000000', code_hash: 'IINLe3KxEhR+Gy+0V7hOdNGjDwT3N9T2KmaOlVLSty8=', extra_currencies: {},
    is_signature_allowed: null, is_wallet: true, last_transaction_hash: 'T65CEggx0i8bVOQmpjt/AgHYpn/MZ0yv7ILIWB3JeZM=',
    last_transaction_lt: '50000000857100', seqno: 7, status: 'active', wallet_id: 698983191, wallet_type: 'wallet v4 r2' };
  wallets.set(r, { raw: r, state, addressBook: null, metadata: undefined, fetchedAt: 1_000_000, upstream: 'sim' });
}
const watched = new Set(wallets.keys());
const handler = createWalletStatesHandler();
const snapshot = { fetchedAt: 1_000_000, wallets };
for (let i = 0; i < ${REQUESTS}; i += 1) {
  const query = padded(i) + '&address=' + raw(i) + '&address=' + raw(i + 1);
  const request = { method: 'GET', query, now: 1_002_500, maxAgeSeconds: 300, nextPollDueAt: null, testnet: false, watched };
  const answer = handler.serve(${snapshotOfRequest}, request);
  if (answer.status !== 200) throw new Error('status ' + answer.status);
}
globalThis.kept = handler;
`;

const readThrough = `
const { createReadThrough } = await import(${JSON.stringify(dist('features/read-through/read-through.js'))});
const { createBatchSize } = await import(${JSON.stringify(dist('accounts/batches.js'))});
const nothing = () => undefined;
const logger = { info: nothing, warn: nothing, error: nothing, debug: nothing };
// An upstream that knows none of them: each is cached as an unknown account.
const client = { fetchWalletStates: async () => ({ ok: true, value: { value: { wallets: [], address_book: {}, metadata: {} }, fetchedAt: 1_000_000, upstream: 'stub' } }) };
const batchSize = createBatchSize(100);
const readThrough = createReadThrough({ client: () => client, batchSize: () => batchSize, now: () => 1_000_000, logger, count: nothing,
  settings: () => ({ ttlSeconds: 3600, maxPendingAddresses: 1000, timeoutMs: 5000 }) });
for (let i = 0; i < ${REQUESTS}; i += 1) {
  const query = padded(i) + '&address=' + raw(i);
  const answer = await readThrough.lookup([query.slice(query.lastIndexOf('=') + 1)], 'client');
  if (!answer.ok || answer.records.size !== 1) throw new Error(JSON.stringify(answer));
}
if (readThrough.size !== ${REQUESTS}) throw new Error('cached ' + readThrough.size);
globalThis.kept = readThrough;
`;

/** Each case's script and the heap it may end with, MB: a process holding the handler and 201 records is a few MB. */
const CASES: Record<string, [script: string, boundMb: number]> = {
  // A new snapshot object for each request: no whole answer is kept, the records' JSON pieces are.
  'walletStates JSON pieces': [walletStates('{ fetchedAt: 1_000_000, wallets }'), 40],
  // One snapshot: whole answers are kept by query, up to 64 MB counting their queries.
  'walletStates whole answers': [walletStates('snapshot'), 40 + 64],
  'read-through cache': [readThrough, 40],
};

function heapAfter(body: string): number {
  const script = `
const raw = (i) => '0:' + i.toString(16).toUpperCase().padStart(64, '0');
/** A query of its own, 1 MB long. */
const padded = (i) => 'pad=' + 'p'.repeat(1_000_000) + i;
${body}
globalThis.gc();
await new Promise((resolve) => setTimeout(resolve, 50));
globalThis.gc();
console.log(JSON.stringify({ heapMb: process.memoryUsage().heapUsed / 1e6 }));
`;
  return measuredInFreshNode<{ heapMb: number }>(script).heapMb;
}

/** The heap a served record's kept JSON pieces take, B: 30,000 records served, 100 a request, from one process. */
function bytesPerKeptRecord(): number {
  const records = 30_000;
  const script = `
const { createWalletStatesHandler } = await import(${JSON.stringify(dist('features/wallets/v3.js'))});
const raw = (i) => '0:' + i.toString(16).toUpperCase().padStart(64, '0');
const wallets = new Map();
for (let i = 0; i < ${records}; i += 1) {
  const r = raw(i);
  const state = { address: r, balance: String(1_500_000_000 + i * 7919), code_hash: 'IINLe3KxEhR+Gy+0V7hOdNGjDwT3N9T2KmaOlVLSty8=',
    extra_currencies: {}, is_signature_allowed: null, is_wallet: true, last_transaction_hash: Buffer.alloc(32, i % 251).toString('base64'),
    last_transaction_lt: String(50_000_000_857_100 + i), seqno: i % 1000, status: 'active', wallet_id: 698983191, wallet_type: 'wallet v4 r2' };
  wallets.set(r, { raw: r, state, addressBook: null, metadata: undefined, fetchedAt: 1_000_000, upstream: 'sim' });
}
const watched = new Set(wallets.keys());
const queries = [];
for (let i = 0; i < ${records}; i += 100) queries.push(Array.from({ length: 100 }, (_, k) => 'address=' + raw(i + k)).join('&'));
const handler = createWalletStatesHandler();
const heap = () => (globalThis.gc(), globalThis.gc(), process.memoryUsage().heapUsed);
const before = heap();
for (const query of queries) {
  // A snapshot object per request: no whole answer is kept, only the pieces.
  const request = { method: 'GET', query, now: 1_002_500, maxAgeSeconds: 300, nextPollDueAt: null, testnet: false, watched };
  if (handler.serve({ fetchedAt: 1_000_000, wallets }, request).status !== 200) throw new Error('not served');
}
console.log(JSON.stringify({ perRecord: (heap() - before) / ${records} }));
globalThis.kept = [handler, queries];
`;
  return measuredInFreshNode<{ perRecord: number }>(script).perRecord;
}

describe('memory a request leaves behind', () => {
  it("keeps a served record's JSON pieces each in one piece", () => {
    // ~530 B a record; 650–790 B with the state piece, the address book piece or both kept as the trees of parts they are made as.
    expect(bytesPerKeptRecord()).toBeLessThan(590);
  });

  it.each(Object.keys(CASES))('keeps no request URL alive (%s)', (name) => {
    const [script, boundMb] = CASES[name] ?? ['', 0];
    // The 200 queries are 200 MB together.
    expect(heapAfter(script)).toBeLessThan(boundMb);
  });
});
