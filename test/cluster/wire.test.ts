import { describe, expect, it } from 'vitest';
import { isNewer, mergeWallets } from '../../src/features/wallets/merge.js';
import { decodeQueueSizes, encodeQueueSizes } from '../../src/features/queue-sizes/wire.js';
import { decodeRecords, encodeRecord } from '../../src/features/wallets/wire.js';
import type { WalletRecord } from '../../src/accounts/types.js';

const raw = (i: number) => `0:${i.toString(16).toUpperCase().padStart(64, '0')}`;
function record(i: number, fetchedAt: number, lt: string | null = '100'): WalletRecord {
  return {
    raw: raw(i),
    state: {
      address: raw(i),
      balance: '123000000000',
      code_hash: 'hNr6RJ+Ypph3ibojI1gHK8D3bcRSQAKl0JGLmnXS1Zk=',
      extra_currencies: {},
      is_signature_allowed: true,
      is_wallet: true,
      last_transaction_hash: 'AAAA',
      last_transaction_lt: lt,
      seqno: 7,
      status: 'active',
      wallet_id: 698983191,
      wallet_type: 'wallet v4 r2',
    },
    addressBook: null,
    metadata: undefined,
    fetchedAt,
    upstream: 'primary',
  };
}

describe('what replicas hand each other', () => {
  it('carries a record and queue sizes whole, with times moved to the reader’s process clock', () => {
    const sent = record(1, 1_000_000, '9007199254740993');
    const line = encodeRecord(sent, 500);
    const { records, refused } = decodeRecords([line, 'not json', '[1,2]'], (wall) => wall - 200);
    expect(refused).toBe(2);
    expect(records).toEqual([{ ...sent, fetchedAt: 1_000_300 }]);
    const queue = { fetchedAt: 5_000, upstream: 'p', extMsgQueueSizeLimit: 8000, shards: [] };
    expect(decodeQueueSizes(encodeQueueSizes(queue, 100), (wall) => wall - 100)).toEqual(queue);
    expect(decodeQueueSizes('{"format":"other"}', (w) => w)).toBeNull();
  });

  it('applies only what is newer and never an older state of the account', () => {
    expect(isNewer(record(1, 2), record(1, 1))).toBe(true);
    expect(isNewer(record(1, 1), record(1, 2))).toBe(false);
    expect(isNewer(record(1, 3, '99'), record(1, 2, '100'))).toBe(false);
    expect(isNewer(record(1, 3, '1000'), record(1, 2, '999'))).toBe(true);
    expect(isNewer(record(1, 3, null), record(1, 2, '999'))).toBe(true);
    const watchlist = [1, 2, 3].map((i) => ({ raw: raw(i) }));
    const held = { wallets: new Map([1, 2].map((i) => [raw(i), record(i, 10)])), fetchedAt: 10 };
    const merged = mergeWallets(
      held,
      new Map([
        [raw(3), record(3, 20)],
        [raw(2), record(2, 5)],
        [raw(9), record(9, 30)],
      ]),
      watchlist,
      isNewer,
    );
    expect([...(merged?.wallets.keys() ?? [])]).toEqual([raw(1), raw(2), raw(3)]);
    expect(merged?.wallets.get(raw(2))?.fetchedAt).toBe(10);
    expect(merged?.fetchedAt).toBe(20);
    expect(mergeWallets(held, new Map([[raw(2), record(2, 5)]]), watchlist, isNewer)).toBeNull();
  });

  it('puts records into the held map when told to, new watched wallets after the others; else into a new map in watchlist order', () => {
    const watchlist = [1, 2, 3].map((i) => ({ raw: raw(i) }));
    const wallets = new Map([2, 1].map((i) => [raw(i), record(i, 10)]));
    const held = { wallets, fetchedAt: 10 };
    const newer = record(2, 20, '200');
    const rebuilt = mergeWallets(held, new Map([[raw(2), newer]]), watchlist, isNewer);
    expect(rebuilt?.wallets).not.toBe(wallets);
    expect([...(rebuilt?.wallets.keys() ?? [])]).toEqual([raw(1), raw(2)]);
    expect(wallets.get(raw(2))?.fetchedAt).toBe(10);
    const into = { wallets, watched: new Set(watchlist.map((w) => w.raw)) };
    const put = mergeWallets(held, new Map([[raw(2), newer]]), watchlist, isNewer, into);
    expect(put?.wallets).toBe(wallets);
    expect(put?.fetchedAt).toBe(20);
    expect(wallets.get(raw(2))).toBe(newer);
    // A watched wallet not held yet goes in after the others; one off the watchlist does not.
    const added = mergeWallets(
      { wallets, fetchedAt: 20 },
      new Map([
        [raw(3), record(3, 30)],
        [raw(9), record(9, 40)],
      ]),
      watchlist,
      isNewer,
      into,
    );
    expect(added?.wallets).toBe(wallets);
    expect(added?.fetchedAt).toBe(30);
    expect([...wallets.keys()]).toEqual([raw(2), raw(1), raw(3)]);
    expect(mergeWallets({ wallets, fetchedAt: 30 }, new Map([[raw(9), record(9, 50)]]), watchlist, isNewer, into)).toBeNull();
    expect(() => mergeWallets(held, new Map([[raw(2), newer]]), watchlist, isNewer, { wallets: new Map(), watched: into.watched })).toThrow(/held map/);
  });
});

describe('records received from other replicas', () => {
  it('share repeated values and address book entries when decoded through one pool, and encode back to the same line', async () => {
    const { createStringPool } = await import('../../src/features/wallets/string-pool.js');
    const { decodeRecord } = await import('../../src/features/wallets/wire.js');
    const { friendlyForm } = await import('../../src/ton/address.js');
    const { isDerivedBook } = await import('../../src/accounts/address-book.js');
    const withBook = (i: number): WalletRecord => ({
      ...record(i, 1_000),
      addressBook: { user_friendly: friendlyForm(raw(i), { bounceable: false, testnet: false }), domain: null, interfaces: ['wallet_v4r2'] },
    });
    const pool = createStringPool();
    const lines = [1, 2].map((i) => encodeRecord(withBook(i), 0));
    const [a, b] = lines.map((line) => decodeRecord(line, (wall) => wall, pool));
    expect(a?.addressBook).toBe(b?.addressBook);
    expect(a?.addressBook !== null && a?.addressBook !== undefined && isDerivedBook(a.addressBook)).toBe(true);
    expect(a?.upstream).toBe(b?.upstream);
    expect([a, b].map((r) => r && encodeRecord(r, 0))).toEqual(lines);
    // Each line through a pool of its own: equal, not shared.
    const [c, d] = lines.map((line) => decodeRecord(line, (wall) => wall));
    expect(c?.addressBook).not.toBe(d?.addressBook);
  });
});
