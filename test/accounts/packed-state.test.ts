import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { packedState, plainState, samePacked } from '../../src/accounts/packed-state.js';
import { sameState } from '../../src/accounts/same-state.js';
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
});
