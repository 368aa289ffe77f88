import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { createInterning } from '../../src/domain/interning.js';
import { matchWalletAnswer } from '../../src/accounts/wallet-mapping.js';
import { entryOfBook, isDerivedBook } from '../../src/accounts/address-book.js';
import { friendlyForm } from '../../src/ton/address.js';
import { assembleWalletsSnapshot } from '../../src/features/wallets/assemble.js';
import type { WalletRecord } from '../../src/accounts/types.js';
import { walletStatesResponseSchema } from '../../src/upstream/http/schemas.js';
import { ADDR, record, walletState } from '../helpers/wallets.js';

// The wallet poll's one copy of what repeats, for as long as it keeps states.
const META = { fetchedAt: 5_000, upstream: 'sim', interning: createInterning() };
const friendly = (raw: string) => Address.parseRaw(raw).toString({ urlSafe: true, bounceable: false });
const answer = (body: unknown) => walletStatesResponseSchema.parse(body);
const upstreamState = (address: string, extra: Record<string, unknown> = {}) => ({ address, status: 'active', balance: '1500000000', ...extra });

describe('matching a walletStates answer to the addresses asked', () => {
  it('matches by address whatever the order, and reports the accounts left out', () => {
    const { found, missing } = matchWalletAnswer(
      [ADDR.a, ADDR.b, ADDR.c],
      answer({
        wallets: [upstreamState(ADDR.c, { balance: '3' }), upstreamState(ADDR.a, { balance: '1' })],
        address_book: { [ADDR.a]: { user_friendly: 'UQa', domain: null } },
      }),
      META,
    );
    expect([...found.keys()]).toEqual([ADDR.a, ADDR.c]);
    expect(found.get(ADDR.a)).toMatchObject({
      raw: ADDR.a,
      state: { address: ADDR.a, balance: '1' },
      addressBook: { user_friendly: 'UQa', domain: null },
      fetchedAt: 5_000,
      upstream: 'sim',
    });
    expect(found.get(ADDR.c)?.addressBook).toBeNull();
    expect(missing).toEqual([ADDR.b]);
  });

  it.each([
    ['lowercase raw', ADDR.a.toLowerCase()],
    ['user-friendly', friendly(ADDR.a)],
  ])('finds an account the upstream printed in %s form, and serves it under the raw key', (_, printed) => {
    const { found, missing } = matchWalletAnswer(
      [ADDR.b, ADDR.a],
      answer({
        wallets: [upstreamState(ADDR.b), upstreamState(printed, { balance: '7' })],
        address_book: { [printed]: { user_friendly: 'UQa', domain: 'a.ton' } },
        metadata: { [printed]: { is_indexed: true } },
      }),
      META,
    );
    expect(missing).toEqual([]);
    expect(found.get(ADDR.a)).toMatchObject({
      state: { address: ADDR.a, balance: '7' },
      addressBook: { user_friendly: 'UQa', domain: 'a.ton' },
      metadata: { is_indexed: true },
    });
    // The served state keeps the API's field order with the address rewritten in place.
    expect(Object.keys(found.get(ADDR.a)?.state ?? {})[0]).toBe('address');
  });

  it('finds a non-canonical form even when the same address is asked twice', () => {
    const { found, missing } = matchWalletAnswer(
      [ADDR.b, ADDR.b, ADDR.a],
      answer({ wallets: [upstreamState(ADDR.b), upstreamState(ADDR.a.toLowerCase())] }),
      META,
    );
    expect(missing).toEqual([]);
    expect([...found.keys()].sort()).toEqual([ADDR.a, ADDR.b].sort());
  });

  it('keeps the previous state object when nothing changed, and takes the new one otherwise', () => {
    const before = record(
      ADDR.a,
      walletState(ADDR.a, {
        balance: '1500000000',
        code_hash: null,
        extra_currencies: {},
        is_signature_allowed: null,
        is_wallet: null,
        last_transaction_hash: null,
        last_transaction_lt: null,
        seqno: null,
        wallet_id: null,
        wallet_type: null,
      }),
    );
    const previous = new Map<string, WalletRecord>([[ADDR.a, before]]);
    const same = matchWalletAnswer([ADDR.a], answer({ wallets: [upstreamState(ADDR.a)] }), META, previous);
    expect(same.found.get(ADDR.a)?.state).toBe(before.state);
    const changed = matchWalletAnswer([ADDR.a], answer({ wallets: [upstreamState(ADDR.a, { balance: '1' })] }), META, previous);
    expect(changed.found.get(ADDR.a)?.state).not.toBe(before.state);
    expect(changed.found.get(ADDR.a)?.state?.balance).toBe('1');
  });

  it('keeps the record held when the wallet is fetched again the same, and advances its fetch time in place', () => {
    const first = matchWalletAnswer([ADDR.a], answer({ wallets: [upstreamState(ADDR.a)], metadata: { [ADDR.a]: { is_indexed: true } } }), META);
    const held = first.found.get(ADDR.a)!;
    const previous = new Map<string, WalletRecord>([[ADDR.a, held]]);
    const again = (body: Record<string, unknown>, meta: Partial<typeof META> = {}) =>
      matchWalletAnswer(
        [ADDR.a],
        answer({ wallets: [upstreamState(ADDR.a)], metadata: { [ADDR.a]: { is_indexed: true } }, ...body }),
        { ...META, ...meta },
        previous,
      ).found.get(ADDR.a)!;
    const same = again({}, { fetchedAt: 6_000 });
    expect(same).toBe(held);
    expect(held.fetchedAt).toBe(6_000);
    // A later fetch time already there (another replica's marker) stays.
    expect(again({}, { fetchedAt: 5_500 })).toBe(held);
    expect(held.fetchedAt).toBe(6_000);
    // Anything else differing makes a new record, and the held one keeps its time.
    for (const [what, made] of [
      ['state', again({ wallets: [upstreamState(ADDR.a, { balance: '2' })] }, { fetchedAt: 7_000 })],
      ['address book', again({ address_book: { [ADDR.a]: { user_friendly: 'UQx', domain: null } } }, { fetchedAt: 7_000 })],
      ['metadata', again({ metadata: { [ADDR.a]: { is_indexed: false } } }, { fetchedAt: 7_000 })],
      ['upstream', again({}, { fetchedAt: 7_000, upstream: 'other' })],
    ] as const) {
      expect(made, what).not.toBe(held);
      expect(made.fetchedAt, what).toBe(7_000);
    }
    expect(held.fetchedAt).toBe(6_000);
  });

  it('keeps the previous address book entry when the new one says the same', () => {
    const entry = { user_friendly: 'UQa', domain: null, interfaces: ['wallet_v4r2'] };
    const previous = new Map<string, WalletRecord>([[ADDR.a, record(ADDR.a, walletState(ADDR.a), 1_000, { addressBook: entry })]]);
    const match = (book: Record<string, unknown>) =>
      matchWalletAnswer([ADDR.a], answer({ wallets: [upstreamState(ADDR.a)], address_book: { [ADDR.a]: book } }), META, previous).found.get(ADDR.a)
        ?.addressBook;
    expect(match({ user_friendly: 'UQa', domain: null, interfaces: ['wallet_v4r2'] })).toBe(entry);
    for (const changed of [
      { user_friendly: 'UQb', domain: null, interfaces: ['wallet_v4r2'] },
      { user_friendly: 'UQa', domain: 'a.ton', interfaces: ['wallet_v4r2'] },
      { user_friendly: 'UQa', domain: null, interfaces: ['wallet_v5r1'] },
      { user_friendly: 'UQa', domain: null, interfaces: [] },
      { user_friendly: 'UQa', domain: null },
      { user_friendly: 'UQa', domain: null, interfaces: ['wallet_v4r2'], more: 1 },
    ]) {
      expect(match(changed), JSON.stringify(changed)).not.toBe(entry);
      expect(match(changed), JSON.stringify(changed)).toEqual(changed);
    }
  });
  it('holds an entry whose user-friendly form is the one made from the raw address as one shared object, and serves it back the same', () => {
    const friendly = friendlyForm(ADDR.a, { bounceable: false, testnet: false });
    const sent = { user_friendly: friendly, domain: null, interfaces: ['wallet_v4r2'] };
    const match = (book: Record<string, unknown>, raw = ADDR.a) =>
      matchWalletAnswer([raw], answer({ wallets: [upstreamState(raw)], address_book: { [raw]: book } }), META).found.get(raw)?.addressBook ?? null;
    const held = match(sent);
    expect(held !== null && isDerivedBook(held)).toBe(true);
    expect(JSON.stringify(entryOfBook(held ?? sent, ADDR.a))).toBe(JSON.stringify(sent));
    // Another wallet's entry alike (flags and other fields): the same object.
    const other = { user_friendly: friendlyForm(ADDR.b, { bounceable: false, testnet: false }), domain: null, interfaces: ['wallet_v4r2'] };
    expect(match(other, ADDR.b)).toBe(held);
    expect(match({ ...sent }, ADDR.a)).toBe(held);
  });
});

describe('what a kept snapshot holds once per process, not once per wallet', () => {
  it('shares equal lists of names across address book entries, frozen, and keeps other lists as they are', () => {
    const book = (raw: string, interfaces: unknown[]) => ({ user_friendly: `UQ${raw.slice(-4)}`, domain: null, interfaces });
    const found = matchWalletAnswer(
      [ADDR.a, ADDR.b, ADDR.c],
      answer({
        wallets: [upstreamState(ADDR.a), upstreamState(ADDR.b), upstreamState(ADDR.c)],
        address_book: { [ADDR.a]: book(ADDR.a, ['wallet_v4r2']), [ADDR.b]: book(ADDR.b, ['wallet_v4r2']), [ADDR.c]: book(ADDR.c, [1, 'x']) },
      }),
      META,
    ).found;
    const bookOf = (raw: string) => entryOfBook(found.get(raw)?.addressBook ?? { user_friendly: null, domain: null }, raw);
    const listOf = (raw: string) => bookOf(raw)['interfaces'];
    expect(listOf(ADDR.a)).toEqual(['wallet_v4r2']);
    expect(listOf(ADDR.a)).toBe(listOf(ADDR.b));
    expect(Object.isFrozen(listOf(ADDR.a))).toBe(true);
    expect(listOf(ADDR.c)).toEqual([1, 'x']);
    expect(bookOf(ADDR.a).user_friendly).toBe(`UQ${ADDR.a.slice(-4)}`);
  });

  it('gives every account without extra currencies the same empty object', () => {
    const found = matchWalletAnswer(
      [ADDR.a, ADDR.b, ADDR.c],
      answer({
        wallets: [upstreamState(ADDR.a, { extra_currencies: {} }), upstreamState(ADDR.b), upstreamState(ADDR.c, { extra_currencies: { '7': '5' } })],
      }),
      META,
    ).found;
    expect(found.get(ADDR.a)?.state?.extra_currencies).toEqual({});
    expect(found.get(ADDR.a)?.state?.extra_currencies).toBe(found.get(ADDR.b)?.state?.extra_currencies);
    expect(found.get(ADDR.c)?.state?.extra_currencies).toEqual({ '7': '5' });
  });

  it("holds the asked key itself as a new state's address, and keeps the previous state when an upstream prints another form", () => {
    // A copy of the key that is not the same string in memory cannot be told apart here;
    // what can be checked is that the state is served under the key and reused by identity.
    const lower = ADDR.a.toLowerCase();
    const first = matchWalletAnswer([ADDR.a], answer({ wallets: [upstreamState(lower)] }), META).found.get(ADDR.a);
    expect(first?.state?.address).toBe(ADDR.a);
    const previous = new Map<string, WalletRecord>([[ADDR.a, first as WalletRecord]]);
    const again = matchWalletAnswer([ADDR.a], answer({ wallets: [upstreamState(lower)] }), META, previous).found.get(ADDR.a);
    expect(again?.state).toBe(first?.state);
  });

  it('keeps the previous metadata entry when the new one is equal, and takes a changed one', () => {
    const meta = { is_indexed: true, token_info: [{ type: 'jetton_masters', name: 'J' }] };
    const ask = (entry: unknown, previous?: Map<string, WalletRecord>) =>
      matchWalletAnswer([ADDR.a], answer({ wallets: [upstreamState(ADDR.a)], metadata: { [ADDR.a]: entry } }), META, previous).found.get(
        ADDR.a,
      ) as WalletRecord;
    const first = ask(meta);
    const previous = new Map<string, WalletRecord>([[ADDR.a, first]]);
    expect(ask(structuredClone(meta), previous).metadata).toBe(first.metadata);
    const changed = { ...meta, is_indexed: false };
    expect(ask(changed, previous).metadata).toEqual(changed);
    expect(ask(changed, previous).metadata).not.toBe(first.metadata);
  });
});

describe("assembling the cycle's snapshot", () => {
  const r = (raw: string, fetchedAt = 5_000) => record(raw, walletState(raw), fetchedAt);

  it("reuses the cycle's map when every wallet answered in watchlist order", () => {
    const found = new Map([ADDR.a, ADDR.b].map((raw) => [raw, r(raw)]));
    expect(assembleWalletsSnapshot([{ raw: ADDR.a }, { raw: ADDR.b }], found, undefined, 9).wallets).toBe(found);
  });

  it('puts wallets in watchlist order, keeps last values for those not answered, and drops those no longer watched', () => {
    const found = new Map([ADDR.b, ADDR.a].map((raw) => [raw, r(raw)]));
    const previous = new Map([ADDR.c, 'gone'].map((raw) => [raw, r(raw, 1_000)]));
    const snapshot = assembleWalletsSnapshot([{ raw: ADDR.a }, { raw: ADDR.c }, { raw: ADDR.b }], found, previous, 9);
    expect([...snapshot.wallets.keys()]).toEqual([ADDR.a, ADDR.c, ADDR.b]);
    expect(snapshot.wallets.get(ADDR.c)?.fetchedAt).toBe(1_000);
    expect(snapshot.fetchedAt).toBe(9);
  });
});

describe('never backwards: a wallet state older than the one served', () => {
  const answer = (lt: string) =>
    walletStatesResponseSchema.parse({ wallets: [{ ...walletState(ADDR.a, { last_transaction_lt: lt }) }], address_book: {}, metadata: {} });
  const served = record(ADDR.a, walletState(ADDR.a, { last_transaction_lt: '50000000857100', balance: '9' }), 10_000);
  const previous = new Map([[ADDR.a, served]]);

  it('keeps the record served when the answer has an older last transaction, and counts it', () => {
    const older = matchWalletAnswer([ADDR.a], answer('50000000857099'), { fetchedAt: 20_000, upstream: 'behind', heldFrom: 5_000 }, previous);
    expect(older.found.get(ADDR.a)).toBe(served);
    expect(older.older).toBe(1);
    // Shorter is older too: logical times are compared as numbers, not as text.
    expect(matchWalletAnswer([ADDR.a], answer('9000000000000'), { fetchedAt: 20_000, upstream: 'behind', heldFrom: 5_000 }, previous).older).toBe(1);
  });

  it('takes an equal or newer one, and any answer once the record served is stale (fetched before heldFrom)', () => {
    const same = matchWalletAnswer([ADDR.a], answer('50000000857100'), { fetchedAt: 20_000, upstream: 'x', heldFrom: 5_000 }, previous);
    expect(same.older).toBe(0);
    expect(same.found.get(ADDR.a)?.fetchedAt).toBe(20_000);
    const newer = matchWalletAnswer([ADDR.a], answer('50000000857101'), { fetchedAt: 20_000, upstream: 'x', heldFrom: 5_000 }, previous);
    expect(newer.found.get(ADDR.a)?.state?.last_transaction_lt).toBe('50000000857101');
    const afterStale = matchWalletAnswer([ADDR.a], answer('50000000857000'), { fetchedAt: 20_000, upstream: 'x', heldFrom: 15_000 }, previous);
    expect(afterStale.older).toBe(0);
    expect(afterStale.found.get(ADDR.a)?.state?.last_transaction_lt).toBe('50000000857000');
  });
});
