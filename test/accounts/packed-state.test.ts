import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { packedKind, plainState, samePacked, stateKind } from '../../src/accounts/packed-state.js';
import { packedState } from '../helpers/wallets.js';
import { isOfKind, sameState } from '../../src/accounts/same-state.js';
import { createInterning } from '../../src/domain/interning.js';
import { NO_CURRENCIES, type ServedWalletState } from '../../src/domain/wallet-state.js';

const state = (over: Partial<ServedWalletState> = {}): ServedWalletState => ({
  address: `0:${'AB'.repeat(32)}`,
  balance: '1234567890',
  code_hash: 'IINLe3KxEhR+Gy+0V9Ot3LvKk8cL2tEO1mzqm3ZP5ZY=',
  extra_currencies: NO_CURRENCIES,
  is_signature_allowed: null,
  is_wallet: true,
  last_transaction_hash: randomBytes(32).toString('base64'),
  last_transaction_lt: '50123456000003',
  seqno: 42,
  status: 'active',
  wallet_id: 698983191,
  wallet_type: 'wallet v4 r2',
  ...over,
});

const isPacked = (s: ServedWalletState): boolean => !Object.hasOwn(s, 'balance');

describe('packed wallet states', () => {
  it('read back every field exactly, balances and logical times past 2^53 included', () => {
    const interning = createInterning();
    const decimals = ['0', '1', '9007199254740991', '9007199254740993', '123456789012345678', '18446744073709551615', '4294967296', '4294967295'];
    for (const balance of decimals) {
      for (const lt of ['0', '50123456000003', '18446744073709551614']) {
        const plain = state({ balance, last_transaction_lt: lt });
        const packed = packedState(plain, interning);
        expect(isPacked(packed)).toBe(true);
        expect(plainState(packed)).toStrictEqual(plain);
        expect(JSON.stringify(packed)).toBe(JSON.stringify(plain));
      }
    }
    for (let i = 0; i < 500; i += 1) {
      const plain = state({ seqno: i % 3 === 0 ? null : i, wallet_id: i % 5 === 0 ? null : i, is_wallet: i % 2 === 0 });
      expect(plainState(packedState(plain, interning))).toStrictEqual(plain);
    }
  });

  it('keep as it came a state whose fields would not read back the same', () => {
    const interning = createInterning();
    const odd = [
      { balance: '01' },
      { balance: '18446744073709551616' },
      { balance: '1e3' },
      { balance: null },
      { last_transaction_lt: '-1' },
      { last_transaction_hash: 'ab'.repeat(32) },
      { last_transaction_hash: `-_${'A'.repeat(41)}=` },
      { last_transaction_hash: randomBytes(32).toString('base64').slice(0, 43) },
      { last_transaction_hash: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB=' },
      { last_transaction_hash: null },
    ] as const;
    for (const over of odd) {
      const plain = state(over);
      expect(packedState(plain, interning)).toBe(plain);
    }
  });

  it('share one part among wallets of a kind, and compare without decoding', () => {
    const interning = createInterning();
    const hash = randomBytes(32).toString('base64');
    const a = packedState(state({ last_transaction_hash: hash }), interning) as unknown as { k: object };
    const b = packedState(state({ last_transaction_hash: hash, address: `0:${'CD'.repeat(32)}` }), interning) as unknown as { k: object };
    expect(a.k).toBe(b.k);
    const one = packedState(state({ last_transaction_hash: hash }), interning);
    const same = packedState(state({ last_transaction_hash: hash }), interning);
    expect(samePacked(one, same)).toBe(true);
    expect(sameState(one, same)).toBe(true);
    expect(sameState(one, plainState(one))).toBe(true);
    for (const over of [{ balance: '1234567891' }, { seqno: 43 }, { status: 'frozen' }, { last_transaction_lt: '50123456000004' }]) {
      const other = packedState(state({ last_transaction_hash: hash, ...over }), interning);
      expect(sameState(one, other)).toBe(false);
    }
  });

  it('compare field by field when the shared parts were kept apart past the limit', () => {
    const interning = createInterning({ strings: 10, lists: 10, objects: 0 });
    const hash = randomBytes(32).toString('base64');
    const a = packedState(state({ last_transaction_hash: hash }), interning);
    const b = packedState(state({ last_transaction_hash: hash }), interning);
    expect(samePacked(a, b)).toBeUndefined();
    expect(sameState(a, b)).toBe(true);
  });

  it('compare a packed state with one as parsed from its bytes, exactly as the texts compare', () => {
    const interning = createInterning();
    const decimals = ['0', '1', '10', '999999999999999', '1000000000000000', '9007199254740991', '9007199254740992', '18446744073709551615', '4294967296'];
    const near = (text: string): string[] => [
      `0${text}`,
      `${text}0`,
      text.length > 1 ? text.slice(0, -1) : '2',
      `${text.slice(0, -1)}${(Number(text.at(-1)) + 1) % 10}`,
      ` ${text}`,
      `${text}.0`,
      '1e3',
      '',
      '-1',
    ];
    for (const balance of decimals) {
      const plain = state({ balance, last_transaction_lt: balance });
      const packed = packedState(plain, interning);
      expect(isPacked(packed)).toBe(true);
      expect(sameState(packed, { ...plain })).toBe(true);
      expect(sameState({ ...plain }, packed)).toBe(true);
      for (const other of near(balance).filter((text) => text !== balance)) {
        expect(sameState(packed, { ...plain, balance: other }), `balance ${balance} against ${other}`).toBe(false);
        expect(sameState(packed, { ...plain, last_transaction_lt: other }), `lt ${balance} against ${other}`).toBe(false);
      }
    }
    const plain = state();
    const packed = packedState(plain, interning);
    const hash = plain.last_transaction_hash as string;
    for (let at = 0; at < 44; at += 1) {
      const changed = `${hash.slice(0, at)}${hash[at] === 'A' ? 'B' : 'A'}${hash.slice(at + 1)}`;
      expect(sameState(packed, { ...plain, last_transaction_hash: changed }), changed).toBe(false);
    }
    for (const over of [
      { last_transaction_hash: null },
      { balance: null },
      { seqno: 43 },
      { status: 'frozen' },
      { extra_currencies: { '100': '1' } },
      { address: '0:00' },
    ])
      expect(sameState(packed, { ...plain, ...over })).toBe(false);
  });

  it('take a kind it is given, and tell whether a state is of a kind', () => {
    const interning = createInterning();
    const first = packedState(state(), interning);
    const kind = packedKind(first);
    expect(kind).toBeDefined();
    expect(packedKind(plainState(first))).toBeUndefined();
    const next = state({ balance: '1', seqno: 43 });
    expect(isOfKind(next, kind!)).toBe(true);
    expect(isOfKind({ ...next, extra_currencies: {} }, kind!)).toBe(true);
    for (const over of [{ status: 'frozen' }, { wallet_id: 1 }, { code_hash: null }, { extra_currencies: { '100': '1' } }, { is_wallet: false }])
      expect(isOfKind(state(over), kind!)).toBe(false);
    const given = packedState(next, createInterning(), kind);
    expect(packedKind(given)).toBe(kind);
    expect(plainState(given)).toStrictEqual(next);
    expect(stateKind(next)).toStrictEqual(kind);
  });
});
