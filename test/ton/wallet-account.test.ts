import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Address, Cell, Dictionary, beginCell, storeAccount, type AccountState } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { WALLET_CODE_HASHES, walletStateOfAccount } from '../../src/ton/wallet-account.js';

/**
 * Real account states of every wallet version we have the code of, built with @ton/core
 * as the chain stores them, decoded into toncenter's twelve fields.
 */

const CODES = JSON.parse(readFileSync(new URL('../fixtures/wallet-codes.json', import.meta.url), 'utf8')) as Record<string, string>;
const codeOf = (version: string): Cell => Cell.fromBase64(CODES[version] ?? '');

const address = new Address(0, Buffer.alloc(32, 0x42));
const RAW = `0:${'42'.repeat(32).toUpperCase()}`;
const TX_HASH = Buffer.alloc(32, 7);

function account(state: AccountState, options: { balance?: bigint; extra?: Record<number, bigint>; addr?: Address } = {}): Cell {
  const other = Dictionary.empty(Dictionary.Keys.Uint(32), Dictionary.Values.BigVarUint(5));
  for (const [id, amount] of Object.entries(options.extra ?? {})) other.set(Number(id), amount);
  const balance = options.balance ?? 5_000_000_000n;
  return beginCell()
    .storeBit(true)
    .store(
      storeAccount({
        addr: options.addr ?? address,
        storageStats: { used: { cells: 1n, bits: 10n }, storageExtra: null, lastPaid: 0, duePayment: null },
        storage: { lastTransLt: 1001n, balance: other.size > 0 ? { coins: balance, other } : { coins: balance }, state },
      }),
    )
    .endCell();
}

const shardAccount = (cell: Cell, lt = 1000n, hash = TX_HASH) => ({ account: cell, lastTransLt: lt, lastTransHash: hash });
const active = (code: Cell, data: Cell): AccountState => ({ type: 'active', state: { code, data } });
const key = randomBytes(32);

/** Data cells as each wallet contract lays them out. */
const DATA: Record<string, Cell> = {
  seqno: beginCell().storeUint(17, 32).storeBuffer(key).endCell(),
  v3: beginCell().storeUint(17, 32).storeUint(698983191, 32).storeBuffer(key).endCell(),
  v4: beginCell().storeUint(17, 32).storeUint(698983191, 32).storeBuffer(key).storeBit(false).endCell(),
  v5: beginCell().storeBit(true).storeUint(17, 32).storeUint(2147483409, 32).storeBuffer(key).storeBit(false).endCell(),
};

const VERSIONS: [version: string, type: string, data: keyof typeof DATA, walletId: number | null, signature: boolean | null][] = [
  ['v1r1', 'wallet v1 r1', 'seqno', null, null],
  ['v1r2', 'wallet v1 r2', 'seqno', null, null],
  ['v1r3', 'wallet v1 r3', 'seqno', null, null],
  ['v2r1', 'wallet v2 r1', 'seqno', null, null],
  ['v2r2', 'wallet v2 r2', 'seqno', null, null],
  ['v3r1', 'wallet v3 r1', 'v3', 698983191, null],
  ['v3r2', 'wallet v3 r2', 'v3', 698983191, null],
  ['v4r2', 'wallet v4 r2', 'v4', 698983191, null],
  ['v5beta', 'wallet v5 beta', 'v5', 2147483409, true],
  ['v5r1', 'wallet v5 r1', 'v5', 2147483409, true],
];

describe('walletStateOfAccount', () => {
  it('knows every fixture code by the hash toncenter uses', () => {
    for (const [version, type] of VERSIONS) {
      expect(WALLET_CODE_HASHES.get(codeOf(version).hash().toString('base64'))?.type, version).toBe(type);
    }
    expect(WALLET_CODE_HASHES.size).toBe(11);
  });

  it.each(VERSIONS)('reads %s (%s) field by field', (version, type, data, walletId, signature) => {
    const code = codeOf(version);
    const cell = account(active(code, DATA[data] as Cell));
    expect(walletStateOfAccount(RAW, cell, shardAccount(cell))).toEqual({
      address: RAW,
      balance: '5000000000',
      code_hash: code.hash().toString('base64'),
      extra_currencies: {},
      is_signature_allowed: signature,
      is_wallet: true,
      last_transaction_hash: TX_HASH.toString('base64'),
      last_transaction_lt: '1000',
      seqno: 17,
      status: 'active',
      wallet_id: walletId,
      wallet_type: type,
    });
  });

  it('takes the last transaction from the ShardAccount, not the account end lt; none at all gives nulls', () => {
    const cell = account(active(codeOf('v4r2'), DATA['v4'] as Cell));
    expect(walletStateOfAccount(RAW, cell, shardAccount(cell, 1000n))?.last_transaction_lt).toBe('1000');
    const none = walletStateOfAccount(RAW, cell, shardAccount(cell, 0n, Buffer.alloc(32)));
    expect(none).toMatchObject({ last_transaction_lt: null, last_transaction_hash: null });
  });

  it('reads other contracts, uninit and frozen accounts and extra currencies as the indexer does', () => {
    const other = beginCell().storeUint(0xdead, 16).endCell();
    const contract = account(active(other, beginCell().storeUint(1, 8).endCell()), { extra: { 100: 12345n, 7: 1n } });
    expect(walletStateOfAccount(RAW, contract, shardAccount(contract))).toMatchObject({
      status: 'active',
      is_wallet: false,
      code_hash: other.hash().toString('base64'),
      wallet_type: null,
      seqno: null,
      wallet_id: null,
      is_signature_allowed: null,
      extra_currencies: { '7': '1', '100': '12345' },
    });
    const uninit = account({ type: 'uninit' }, { balance: 3n });
    expect(walletStateOfAccount(RAW, uninit, shardAccount(uninit))).toMatchObject({ status: 'uninit', balance: '3', code_hash: null, is_wallet: false });
    const frozen = account({ type: 'frozen', stateHash: 5n });
    expect(walletStateOfAccount(RAW, frozen, shardAccount(frozen))).toMatchObject({ status: 'frozen', code_hash: null, is_wallet: false, wallet_type: null });
  });

  it('answers nothing for a missing account, and refuses the state of another account', () => {
    expect(walletStateOfAccount(RAW, undefined, null)).toBeNull();
    expect(walletStateOfAccount(RAW, beginCell().storeBit(false).endCell(), null)).toBeNull();
    const elsewhere = account({ type: 'uninit' }, { addr: new Address(0, Buffer.alloc(32, 1)) });
    expect(() => walletStateOfAccount(RAW, elsewhere, shardAccount(elsewhere))).toThrow(/not of/);
  });

  it('reports no wallet fields when a wallet code has data too short for it', () => {
    const cell = account(active(codeOf('v4r2'), beginCell().storeUint(1, 8).endCell()));
    expect(walletStateOfAccount(RAW, cell, shardAccount(cell))).toMatchObject({
      is_wallet: false,
      wallet_type: null,
      seqno: null,
      code_hash: codeOf('v4r2').hash().toString('base64'),
    });
  });
});
