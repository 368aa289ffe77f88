import { copyFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import type { ServedWalletState } from '../../src/domain/wallet-state.js';
import type { ServedResponse } from '../../src/serve/response.js';
import { bodyText } from '../helpers/response.js';
import { createWalletStatesHandler, type WalletStatesRequest } from '../../src/features/wallets/v3.js';
import { userFriendly } from '../../src/ton/address.js';
import { ADDR, record, walletState, walletsSnapshot } from '../helpers/wallets.js';
import { rawAddresses } from '../helpers/addresses.js';
import { omissionProblems } from '../helpers/indexer-schema.js';
import { createLogSink } from '../helpers/log.js';
import { WALLETS_FILE } from '../../src/features/wallets/file.js';
import { createPersistedFile } from '../../src/snapshot/persisted-file.js';

const NOW = 1_000_000 + 2_500;
/** Without read-through the handler answers synchronously. */
const sync = (answer: ServedResponse | Promise<ServedResponse>): ServedResponse => {
  if (answer instanceof Promise) throw new Error('expected a synchronous answer');
  return answer;
};
const serveWalletStates = (...args: Parameters<ReturnType<typeof createWalletStatesHandler>['serve']>) => sync(createWalletStatesHandler().serve(...args));
const base = (watched: string[], query: string): WalletStatesRequest => ({
  method: 'GET',
  query,
  now: NOW,
  maxAgeSeconds: 300,
  nextPollDueAt: 1_000_000 + 30_000,
  testnet: false,
  watched: new Set(watched),
});
const body = (r: ServedResponse) => JSON.parse(bodyText(r));
const q = (...addresses: string[]) => addresses.map((a) => `address=${encodeURIComponent(a)}`).join('&');

/** The indexer's keys, in its order, for a wallet that has every field (ton-index-go `WalletState`). */
const INDEXER_FIELDS = [
  'address',
  'is_wallet',
  'wallet_type',
  'seqno',
  'wallet_id',
  'balance',
  'extra_currencies',
  'is_signature_allowed',
  'status',
  'code_hash',
  'last_transaction_hash',
  'last_transaction_lt',
];

describe('GET /api/v3/walletStates', () => {
  const uninit = walletState(ADDR.b, { status: 'uninit', is_wallet: false, seqno: null, wallet_type: null, wallet_id: null, code_hash: null });
  const snapshot = walletsSnapshot([
    record(ADDR.a, walletState(ADDR.a), 1_000_000, {
      addressBook: { user_friendly: 'UQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlYwEE', domain: null, interfaces: ['wallet_v4r2'] },
      metadata: { is_indexed: true },
    }),
    record(ADDR.b, uninit),
    record(ADDR.c, null),
  ]);
  const watched = [ADDR.a, ADDR.b, ADDR.c];

  it("answers one address in toncenter's v3 format, with the indexer's fields in its order", () => {
    const response = serveWalletStates(snapshot, base(watched, q('EQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlY1zB')));
    expect(response.status).toBe(200);
    const json = body(response);
    expect(Object.keys(json)).toEqual(['wallets', 'address_book', 'metadata']);
    expect(json.wallets).toHaveLength(1);
    // No extra currencies and no is_signature_allowed (a v4 wallet): both left out.
    expect(Object.keys(json.wallets[0])).toEqual(INDEXER_FIELDS.filter((f) => f !== 'extra_currencies' && f !== 'is_signature_allowed'));
    expect(json.wallets[0]).toMatchObject({ address: ADDR.a, balance: '1500000000', last_transaction_lt: '50000000857100', seqno: 7 });
    expect(json.address_book).toEqual({
      [ADDR.a]: { user_friendly: 'UQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlYwEE', domain: null, interfaces: ['wallet_v4r2'] },
    });
    expect(json.metadata).toEqual({ [ADDR.a]: { is_indexed: true } });
    expect(response.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      age: '2',
      'cache-control': 'max-age=28',
      'last-modified': new Date(1_000_000).toUTCString(),
    });
  });

  it('leaves out what the upstream left out, as the indexer does (null only for the last transaction), and computes the address book when the upstream gave none', () => {
    const json = body(serveWalletStates(snapshot, base(watched, q(ADDR.b, ADDR.c))));
    expect(json.wallets).toEqual([
      {
        address: ADDR.b,
        is_wallet: false,
        balance: '1500000000',
        status: 'uninit',
        last_transaction_hash: uninit.last_transaction_hash,
        last_transaction_lt: '50000000857100',
      },
    ]);
    const unknownTx = walletState(ADDR.b, { status: 'nonexist', is_wallet: null, balance: null, last_transaction_hash: null, last_transaction_lt: null });
    const every = { address: ADDR.b, is_wallet: true, extra_currencies: { '100': '5' }, is_signature_allowed: false, wallet_type: 'wallet v5 r1' };
    const served = (state: ServedWalletState) => body(serveWalletStates(walletsSnapshot([record(ADDR.b, state)]), base([ADDR.b], q(ADDR.b)))).wallets[0];
    expect(served(unknownTx)).toEqual({
      address: ADDR.b,
      is_wallet: false,
      wallet_type: 'wallet v4 r2',
      seqno: 7,
      wallet_id: 698983191,
      status: 'nonexist',
      code_hash: unknownTx.code_hash,
      last_transaction_hash: null,
      last_transaction_lt: null,
    });
    expect(Object.keys(served(walletState(ADDR.b, every)))).toEqual(INDEXER_FIELDS);
    const address = (raw: string) => Address.parseRaw(raw);
    expect(json.address_book).toEqual({
      [ADDR.b]: { user_friendly: userFriendly(address(ADDR.b), { bounceable: false, testnet: false }), domain: null },
      [ADDR.c]: { user_friendly: userFriendly(address(ADDR.c), { bounceable: true, testnet: false }), domain: null },
    });
    expect(json.metadata).toEqual({});
  });

  it('keeps request order, lists duplicates once, accepts repeated and comma-separated forms and + as a space', () => {
    const a = Address.parseRaw(ADDR.a);
    const standard = a.toString({ urlSafe: false, bounceable: true });
    const query = `address=${ADDR.b.toLowerCase()},${encodeURIComponent(standard)}&address=${userFriendly(a, { bounceable: false, testnet: true })}&address=${ADDR.b}`;
    const json = body(serveWalletStates(snapshot, base(watched, query)));
    expect(json.wallets.map((w: { address: string }) => w.address)).toEqual([ADDR.b, ADDR.a]);
    expect(Object.keys(json.address_book)).toEqual([ADDR.b, ADDR.a]);
    const plus = Address.parseRaw('0:FB7F4C2C94C7A9FA4E15F1C3C0F1D2C6A19B3E5DC29A6F5E2E8D9F0C1B2A3948').toString({ urlSafe: false, bounceable: true });
    expect(plus).toContain('+');
    const spaced = serveWalletStates(snapshot, base(watched, `address=${plus.replaceAll('/', '%2F')}`));
    expect(Object.keys(body(spaced).address_book)).toEqual(['0:FB7F4C2C94C7A9FA4E15F1C3C0F1D2C6A19B3E5DC29A6F5E2E8D9F0C1B2A3948']);
  });

  it('leaves addresses that are not on the watchlist out of wallets, but in the address book', () => {
    const json = body(serveWalletStates(snapshot, base([ADDR.b], q(ADDR.a, ADDR.b))));
    expect(json.wallets.map((w: { address: string }) => w.address)).toEqual([ADDR.b]);
    expect(Object.keys(json.address_book)).toEqual([ADDR.a, ADDR.b]);
    expect(json.address_book[ADDR.a].user_friendly.startsWith('EQ')).toBe(true);
  });

  it.each([100, 1024])('answers %i addresses', (n) => {
    const list = rawAddresses(n);
    const big = walletsSnapshot(list.map((r) => record(r, walletState(r))));
    const json = body(serveWalletStates(big, base(list, `address=${list.join(',')}`)));
    expect(json.wallets).toHaveLength(n);
    expect(Object.keys(json.address_book)).toHaveLength(n);
    expect(json.wallets[n - 1].address).toBe(list[n - 1]);
  });

  it('counts values as given: 1024 duplicates pass, 1025 fail', () => {
    expect(serveWalletStates(snapshot, base(watched, Array(1024).fill(`address=${ADDR.a}`).join('&'))).status).toBe(200);
    const over = serveWalletStates(snapshot, base(watched, Array(1025).fill(`address=${ADDR.a}`).join('&')));
    expect(over.status).toBe(422);
    expect(body(over)).toEqual({ error: 'too many addresses: at most 1024 per request' });
  });

  it.each([
    ['no address', '', /address of account is required/],
    ['an empty address', 'address=', /address of account is required/],
    ['another parameter only', 'addr=x', /address of account is required/],
    ['an invalid address, named', `address=${ADDR.a},nonsense`, /invalid address nonsense/],
    ['a bad checksum', 'address=EQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlY1zC', /invalid address EQApAj3r.*checksum/i],
    ['broken percent-encoding', 'address=%E0%A4%A', /percent-encoding/],
  ])('answers 422 for %s', (_name, query, message) => {
    const response = serveWalletStates(snapshot, base(watched, query));
    expect(response.status).toBe(422);
    expect(Object.keys(body(response))).toEqual(['error']);
    expect(body(response).error).toMatch(message);
  });

  it('answers 503 with Retry-After without a snapshot or when it is too old', () => {
    const none = serveWalletStates(null, base(watched, q(ADDR.a)));
    expect(none.status).toBe(503);
    expect(none.headers['retry-after']).toBe('28');
    expect(body(none).error).toMatch(/no wallet snapshot/);
    const stale = serveWalletStates(snapshot, { ...base(watched, q(ADDR.a)), now: 1_000_000 + 301_000 });
    expect(stale.status).toBe(503);
    expect(body(stale).error).toMatch(/older than snapshot.maxAgeSeconds/);
  });

  it('answers 405 for other methods', () => {
    const response = serveWalletStates(snapshot, { ...base(watched, q(ADDR.a)), method: 'POST' });
    expect(response.status).toBe(405);
    expect(body(response)).toEqual({ error: 'method POST not allowed; use GET' });
  });

  it('caches whole answers per snapshot, and rebuilds them when data changes or turns stale', () => {
    const handler = createWalletStatesHandler();
    const query = q(ADDR.a, ADDR.b);
    // The watchlist set is one object per config, as in the daemon.
    const request = base(watched, query);
    const first = sync(handler.serve(snapshot, request));
    expect(sync(handler.serve(snapshot, { ...request, now: NOW + 1000 })).body).toBe(first.body);
    // A new snapshot: a new answer.
    const next = walletsSnapshot([record(ADDR.a, walletState(ADDR.a, { balance: '5' }), 1_000_000), record(ADDR.b, uninit, 1_000_000 - 200_000)], 1_000_000);
    const changed = body(sync(handler.serve(next, request)));
    expect(changed.wallets.map((w: { balance: string }) => w.balance)).toEqual(['5', uninit.balance]);
    // ADDR.b's record turns stale 100 s later: the cached answer is rebuilt without it.
    const later = body(sync(handler.serve(next, { ...request, now: 1_000_000 + 100_001 })));
    expect(later.wallets.map((w: { address: string }) => w.address)).toEqual([ADDR.a]);
    // A new watchlist: rebuilt too.
    expect(body(sync(handler.serve(next, base([ADDR.b], query)))).wallets).toHaveLength(1);
  });

  it('answers the same once the records it kept JSON for have been dropped', () => {
    // One record per generation: every second address drops what was kept for the others.
    const small = createWalletStatesHandler(() => 0, 1);
    const unbounded = createWalletStatesHandler();
    for (const query of [q(ADDR.a), q(ADDR.b), q(ADDR.c), q(ADDR.a, ADDR.b, ADDR.c), q(ADDR.c, ADDR.a), q(ADDR.a)]) {
      for (const testnet of [false, true]) {
        const request = { ...base(watched, query), testnet };
        expect(bodyText(sync(small.serve(snapshot, request)))).toBe(bodyText(sync(unbounded.serve(snapshot, request))));
      }
    }
  });
});

describe('a snapshot persisted before the omission rule', () => {
  it('loads and serves under the indexer omission rule (the file keeps nulls; only the served form leaves them out)', async () => {
    // Written by the version before the rule changed (test/fixtures/persisted-before-omission).
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-old-snapshot-'));
    for (const name of ['snapshot.json', 'snapshot.wallets.json']) {
      await copyFile(fileURLToPath(new URL(`../fixtures/persisted-before-omission/${name}`, import.meta.url)), join(dir, name));
    }
    const persisted = createPersistedFile({ file: join(dir, 'snapshot.wallets.json'), codec: WALLETS_FILE, logger: createLogSink().logger, now: () => NOW });
    const loaded = await persisted.load();
    const raws = [...(loaded?.wallets.keys() ?? [])];
    expect(raws).toHaveLength(3);
    const json = body(serveWalletStates(loaded, base(raws, q(...raws))));
    expect(json.wallets).toHaveLength(3);
    for (const wallet of json.wallets) expect(omissionProblems(wallet)).toEqual([]);
    expect(json.wallets[2]).toEqual({ address: raws[2], is_wallet: false, status: 'nonexist', last_transaction_hash: null, last_transaction_lt: null });
  });
});
