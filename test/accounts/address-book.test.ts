import { describe, expect, it } from 'vitest';
import {
  addressBookEntryOf,
  derivedStill,
  entryOfBook,
  friendlyOfBook,
  heldBook,
  heldBookAsRecent,
  isDerivedBook,
  sameFriendly,
  userFriendlyOf,
} from '../../src/accounts/address-book.js';
import { createInterning } from '../../src/domain/interning.js';
import type { AddressBookEntry } from '../../src/domain/wallet-state.js';
import { friendlyForm } from '../../src/ton/address.js';

const raw = (i: number) => `0:${(i * 7919).toString(16).toUpperCase().padStart(64, 'A')}`;
const MASTER = `-1:${'3'.repeat(64)}`;
const FLAGS = [
  { bounceable: true, testnet: false },
  { bounceable: false, testnet: false },
  { bounceable: true, testnet: true },
  { bounceable: false, testnet: true },
];

describe('address book entries as records hold them', () => {
  it('holds an entry whose user-friendly form is made from the raw address, under any flags, as one shared object that serves the same bytes', () => {
    const interning = createInterning();
    for (const address of [raw(1), MASTER]) {
      for (const flags of FLAGS) {
        const sent: AddressBookEntry = { user_friendly: friendlyForm(address, flags), domain: null, interfaces: ['wallet_v5r1'] };
        const held = heldBook(sent, address, interning);
        expect(isDerivedBook(held), JSON.stringify(flags)).toBe(true);
        expect(JSON.stringify(entryOfBook(held, address))).toBe(JSON.stringify(sent));
        expect(friendlyOfBook(held, address)).toBe(sent.user_friendly);
        expect(Object.isFrozen(held)).toBe(true);
      }
    }
    const alike = (i: number) => heldBook({ user_friendly: friendlyForm(raw(i), FLAGS[1]!), domain: null, interfaces: ['wallet_v4r2'] }, raw(i), interning);
    expect(alike(2)).toBe(alike(3));
    expect(entryOfBook(alike(2), raw(2)).user_friendly).not.toBe(entryOfBook(alike(3), raw(3)).user_friendly);
    // Other fields, and their order, come back as sent.
    const domain = { user_friendly: friendlyForm(raw(4), FLAGS[0]!), interfaces: [], domain: 'exchange.ton', more: { a: 1 } };
    expect(JSON.stringify(entryOfBook(heldBook(domain, raw(4), interning), raw(4)))).toBe(JSON.stringify(domain));
  });

  it('keeps any other entry as it came', () => {
    const interning = createInterning();
    const address = raw(5);
    const form = friendlyForm(address, FLAGS[1]!);
    const kept: AddressBookEntry[] = [
      { user_friendly: friendlyForm(raw(6), FLAGS[1]!), domain: null }, // another account's form
      { domain: null, user_friendly: form }, // not first: the served key order would change
      { user_friendly: form.replaceAll('-', '+').replaceAll('_', '/'), domain: null }, // standard base64
      { user_friendly: `${form.slice(0, 47)}A`, domain: null },
      { user_friendly: null, domain: null },
      { user_friendly: 'UQa', domain: null },
    ];
    for (const entry of kept) expect(heldBook(entry, address, interning), JSON.stringify(entry)).toBe(entry);
  });

  it('keeps entries as they came once its interning is full', () => {
    const interning = createInterning({ strings: 10, lists: 10, objects: 2 });
    const books = [1, 2, 3].map((i) => ({ user_friendly: friendlyForm(raw(i), FLAGS[0]!), domain: `d${i}.ton` }));
    const held = books.map((entry, i) => heldBook(entry, raw(i + 1), interning));
    expect(held.map(isDerivedBook)).toEqual([true, true, false]);
    expect(held[2]).toBe(books[2]);
  });

  it('computes an entry for a wallet the upstream sent none for, and compares what the user-friendly label would show', () => {
    const interning = createInterning();
    const address = raw(7);
    const wallet = { is_wallet: true, status: 'active' } as Parameters<typeof userFriendlyOf>[1];
    expect(addressBookEntryOf(null, wallet, address, false)).toEqual({ user_friendly: friendlyForm(address, FLAGS[1]!), domain: null });
    expect(userFriendlyOf(null, undefined, address, true)).toBe(friendlyForm(address, FLAGS[2]!));
    const derived = heldBook({ user_friendly: friendlyForm(address, FLAGS[1]!), domain: null }, address, interning);
    const plain: AddressBookEntry = { user_friendly: friendlyForm(address, FLAGS[1]!), domain: null, interfaces: [] };
    expect(sameFriendly(derived, plain, address)).toBe(true);
    expect(sameFriendly(derived, { user_friendly: friendlyForm(address, FLAGS[0]!), domain: null }, address)).toBe(false);
    expect(sameFriendly(null, null, address)).toBe(true);
    expect(sameFriendly(null, plain, address)).toBe(false);
  });
  it('tells a poll whether the entry sent is still the one a derived book holds, key order and lists included', () => {
    const interning = createInterning();
    const address = raw(8);
    const form = friendlyForm(address, FLAGS[1]!);
    const sent = { user_friendly: form, domain: null, interfaces: ['wallet_v4r2'] };
    const book = heldBook(sent, address, interning);
    if (!isDerivedBook(book)) throw new Error('not derived');
    expect(derivedStill({ user_friendly: form, domain: null, interfaces: ['wallet_v4r2'] }, book, address)).toBe(true);
    for (const other of [
      { user_friendly: friendlyForm(address, FLAGS[0]!), domain: null, interfaces: ['wallet_v4r2'] },
      { user_friendly: form, domain: null, interfaces: ['wallet_v5r1'] },
      { user_friendly: form, domain: null, interfaces: [] },
      { user_friendly: form, domain: null },
      { user_friendly: form, interfaces: ['wallet_v4r2'], domain: null },
      { domain: null, user_friendly: form, interfaces: ['wallet_v4r2'] },
      { user_friendly: form, domain: null, interfaces: ['wallet_v4r2'], more: 1 },
    ])
      expect(derivedStill(other, book, address), JSON.stringify(other)).toBe(false);
    expect(derivedStill(sent, book, raw(9))).toBe(false);
  });

  it('reuses the derived book last made for the same flags when it holds, and otherwise gives what heldBook gives', () => {
    const interning = createInterning();
    const recent = new Map();
    const entry = (i: number, flags = FLAGS[1]!, rest: Record<string, unknown> = { domain: null }) =>
      ({ user_friendly: friendlyForm(raw(i), flags), ...rest }) as AddressBookEntry;
    const first = heldBookAsRecent(entry(1), raw(1), interning, recent);
    expect(isDerivedBook(first)).toBe(true);
    expect(heldBookAsRecent(entry(2), raw(2), interning, recent)).toBe(first);
    // Other flags, other fields, another order, a form not of this address: what heldBook gives, served the same.
    const cases: [AddressBookEntry, string][] = [
      [entry(3, FLAGS[0]), raw(3)],
      [entry(4, FLAGS[1], { domain: 'x.ton' }), raw(4)],
      [{ domain: null, user_friendly: friendlyForm(raw(5), FLAGS[1]!) }, raw(5)],
      [entry(6), raw(7)],
    ];
    for (const [sent, address] of cases) {
      const held = heldBookAsRecent(sent, address, interning, recent);
      expect(held).toBe(heldBook(sent, address, interning));
      expect(JSON.stringify(entryOfBook(held, address))).toBe(JSON.stringify(sent));
    }
    expect(heldBookAsRecent(entry(8), raw(8), interning, recent)).toBe(first);
  });
});
