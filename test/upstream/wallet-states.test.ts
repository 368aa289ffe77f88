import { describe, expect, it } from 'vitest';
import { WALLET_STATE_FIELDS } from '../../src/domain/wallet-state.js';
import { walletStatesResponseSchema } from '../../src/upstream/http/schemas.js';
import { decodeWalletStates, decodeWalletStatesQuickly } from '../../src/upstream/http/wallet-states.js';
import { fixture } from '../helpers/fixtures.js';
import { clone, DELETE, expectAgreement, set, shown } from '../helpers/zod-agreement.js';

/**
 * The hand-written decoder must never accept what the zod schema refuses, nor decode
 * differently from it. Every field of every account, and every part of the envelope, is
 * set to values of the wrong shape, of odd but valid shapes, and deleted.
 */

/** Shaped as toncenter's indexer answers: v5r1, v4r2, uninit, frozen, a jetton master. */
const BODY = fixture('v3-wallet-states.json') as { wallets: Record<string, unknown>[] };

const ODD_VALUES: unknown[] = [
  DELETE,
  null,
  '',
  '12',
  '007',
  '-1',
  '1.5',
  '1e3',
  ' 12',
  '١٢',
  'abc',
  0,
  -1,
  1.5,
  2 ** 53,
  2 ** 53 - 1,
  -(2 ** 31),
  NaN,
  true,
  false,
  [],
  ['1'],
  {},
  { 1: '2' },
  { 1: 2 },
  { 1: 'x' },
  { 1: '' },
];
/** Every field of a wallet state, and one the decoder does not know. */
const WALLET_FIELDS = [...WALLET_STATE_FIELDS.map((field) => field.name), 'unknown_extra'];

function* mutations(): Generator<[string, unknown]> {
  yield ['unchanged', clone(BODY)];
  for (const [i] of BODY.wallets.entries()) {
    for (const field of WALLET_FIELDS) {
      for (const value of ODD_VALUES) {
        const body = clone(BODY);
        set(body.wallets[i] as Record<string, unknown>, field, value);
        yield [`wallets[${i}].${field} = ${shown(value)}`, body];
      }
    }
    for (const value of [null, 1, 'x', [], {}]) {
      const body = clone(BODY);
      (body.wallets as unknown[])[i] = value;
      yield [`wallets[${i}] = ${JSON.stringify(value)}`, body];
    }
  }
  const envelope: Record<string, unknown[]> = {
    wallets: [DELETE, null, {}, 'x', [], [[]]],
    address_book: [
      DELETE,
      null,
      [],
      'x',
      {},
      { a: null },
      { a: 1 },
      { a: [] },
      { a: { user_friendly: 1 } },
      { a: { domain: 'd.ton' } },
      { a: { user_friendly: null } },
      { a: { user_friendly: 'UQ', domain: null, more: [1] } },
      { constructor: { user_friendly: 'x', domain: null } },
      JSON.parse('{"__proto__": {"user_friendly": "x", "domain": null}}'),
    ],
    metadata: [DELETE, null, [], 'x', { a: 1 }, { a: null }, { constructor: 'x' }, { constructor: {} }, JSON.parse('{"__proto__": {}}')],
  };
  for (const [key, values] of Object.entries(envelope)) {
    for (const value of values) {
      const body = clone(BODY) as unknown as Record<string, unknown>;
      set(body, key, value);
      yield [`${key} = ${shown(value)}`, body];
    }
  }
  for (const body of [null, [], 'x', 1, {}]) yield [`body = ${JSON.stringify(body)}`, body];
}

describe('walletStates decoder', () => {
  it("decodes toncenter's answer on its fast path, exactly as the zod schema does, field order included", () => {
    const quick = decodeWalletStatesQuickly(clone(BODY));
    const reference = walletStatesResponseSchema.parse(clone(BODY));
    expect(quick).not.toBeNull();
    expect(quick).toStrictEqual(reference);
    expect(JSON.stringify(quick)).toBe(JSON.stringify(reference));
    // The rule for fields left out: null, extra_currencies {}.
    expect(quick?.wallets[3]).toMatchObject({ status: 'frozen', code_hash: null, seqno: null, wallet_type: null, extra_currencies: {} });
  });

  it('never accepts what zod refuses, never decodes differently, and leaves anything unusual to zod', () => {
    // Refused: zod's own issues, so the logged reason is zod's.
    const { cases, fast } = expectAgreement(mutations(), { schema: walletStatesResponseSchema, quick: decodeWalletStatesQuickly, decode: decodeWalletStates });
    // The fast path is taken for the ordinary variations, not only the unchanged body.
    expect(cases).toBeGreaterThan(1500);
    expect(fast).toBeGreaterThan(300);
  });

  it('does not change the parsed body when it fills in an address book entry', () => {
    const body = { wallets: [], address_book: { a: { user_friendly: 'UQx' } } };
    const decoded = decodeWalletStatesQuickly(body);
    expect(decoded?.address_book['a']).toEqual({ user_friendly: 'UQx', domain: null });
    expect(body.address_book.a).toEqual({ user_friendly: 'UQx' });
  });
});
