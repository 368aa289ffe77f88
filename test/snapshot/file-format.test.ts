import { describe, expect, it } from 'vitest';
import { WALLET_STATE_FIELDS } from '../../src/domain/wallet-state.js';
import { decodeWalletsFile, decodeWalletsFileQuickly, walletRecordSchema, walletsFileSchema } from '../../src/features/wallets/file-format.js';
import { createRowExpander, createWalletRowWriter, decodeWalletRow } from '../../src/features/wallets/file-rows.js';
import { createStringPool } from '../../src/features/wallets/string-pool.js';
import type { WalletRecord } from '../../src/accounts/types.js';
import type { AddressBookEntry } from '../../src/domain/wallet-state.js';
import { entryOfBook, heldBook, isDerivedBook } from '../../src/accounts/address-book.js';
import { createInterning } from '../../src/domain/interning.js';
import { friendlyForm } from '../../src/ton/address.js';

/** A decoded record with its address book entry as served (a record holds most entries derived: accounts/address-book.ts). */
function asSent<T extends { ok: boolean; record?: WalletRecord }>(decoded: T): T {
  const { record } = decoded;
  if (record?.addressBook === null || record?.addressBook === undefined) return decoded;
  return { ...decoded, record: { ...record, addressBook: entryOfBook(record.addressBook, record.raw) } };
}
import { createRandom } from '../../src/sim/random.js';
import { clone, DELETE, expectAgreement, mutated, notAFile, set, shown } from '../helpers/zod-agreement.js';

/**
 * The hand-written check of the wallets file must never accept what the zod schema
 * refuses, nor give anything but what zod gives (key order included): every field of
 * every record, of its state and address book entry, and of the envelope is set to values
 * of the wrong shape, of odd but valid shapes, deleted, and moved.
 */

const HASH = 'te6cckEBAQEAAgAAAEysuc0=';
const FILE = {
  format: 'tonwatch-snapshot',
  version: 2,
  part: 'wallets',
  wallets: {
    fetchedAt: 1795000000000,
    records: [
      {
        raw: '0:29023DEB1272494B112310754AAC7DD0660B68FCC40C3A693C97BD9ACDA5E563',
        state: {
          address: '0:29023DEB1272494B112310754AAC7DD0660B68FCC40C3A693C97BD9ACDA5E563',
          balance: '1500000000',
          code_hash: HASH,
          extra_currencies: { 100: '5', 7: '1' },
          is_signature_allowed: true,
          is_wallet: true,
          last_transaction_hash: HASH,
          last_transaction_lt: '51000000000001',
          seqno: 12,
          status: 'active',
          wallet_id: 2147483409,
          wallet_type: 'wallet v5 r1',
        },
        addressBook: { user_friendly: 'UQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlYwEE', domain: null, interfaces: ['wallet_v5r1'] },
        fetchedAt: 1795000000000,
        upstream: 'toncenter',
      },
      {
        raw: '-1:3333333333333333333333333333333333333333333333333333333333333333',
        state: {
          address: '-1:3333333333333333333333333333333333333333333333333333333333333333',
          balance: null,
          code_hash: null,
          extra_currencies: {},
          is_signature_allowed: null,
          is_wallet: false,
          last_transaction_hash: null,
          last_transaction_lt: null,
          seqno: null,
          status: 'uninit',
          wallet_id: null,
          wallet_type: null,
        },
        addressBook: null,
        metadata: { '-1:3333333333333333333333333333333333333333333333333333333333333333': { is_indexed: true } },
        fetchedAt: 1794999990000,
        upstream: 'backup',
      },
      {
        raw: '0:4444444444444444444444444444444444444444444444444444444444444444',
        state: null,
        addressBook: null,
        fetchedAt: 1794999990000,
        upstream: 'toncenter',
      },
    ],
  },
};
const ODD_VALUES: unknown[] = [
  DELETE,
  undefined,
  null,
  '',
  '12',
  0,
  -1,
  1.5,
  2 ** 53,
  2 ** 53 - 1,
  true,
  false,
  [],
  ['1'],
  {},
  { 1: '2' },
  { 1: 2 },
  { a: null },
];
type Json = Record<string, unknown>;

/** The same object with `key` moved to the end. */
function moved(target: Json, key: string): Json {
  const { [key]: value, ...rest } = target;
  return { ...rest, [key]: value };
}

function* mutations(): Generator<[string, unknown]> {
  yield ['unchanged', clone(FILE)];
  const records = (file: unknown): Json[] => (file as { wallets: { records: Json[] } }).wallets.records;
  for (const [i, record] of FILE.wallets.records.entries()) {
    for (const field of [...Object.keys(record), 'metadata', 'unknown_extra']) {
      for (const value of ODD_VALUES) {
        const file = clone(FILE);
        set(records(file)[i] as Json, field, value);
        yield [`records[${i}].${field} = ${shown(value)}`, file];
      }
      const file = clone(FILE);
      records(file)[i] = moved(records(file)[i] as Json, field);
      yield [`records[${i}] with ${field} moved last`, file];
    }
    for (const part of ['state', 'addressBook'] as const) {
      const inner = record[part] as Json | null;
      if (inner === null) continue;
      for (const field of [...Object.keys(inner), 'unknown_extra']) {
        for (const value of ODD_VALUES) {
          const file = clone(FILE);
          set(records(file)[i]?.[part] as Json, field, value);
          yield [`records[${i}].${part}.${field} = ${shown(value)}`, file];
        }
        const file = clone(FILE);
        (records(file)[i] as Json)[part] = moved(records(file)[i]?.[part] as Json, field);
        yield [`records[${i}].${part} with ${field} moved last`, file];
      }
    }
    for (const value of [null, 1, 'x', [], {}, JSON.parse('{"__proto__": {}}')]) {
      const file = clone(FILE);
      records(file)[i] = value;
      yield [`records[${i}] = ${JSON.stringify(value)}`, file];
    }
  }
  const file = clone(FILE);
  (records(file)[0]?.state as Json).extra_currencies = JSON.parse('{"__proto__": "1"}');
  yield ['extra_currencies with a __proto__ key', file];
  yield* mutated(FILE as unknown as Json, {
    format: [DELETE, 'tonwatch', 1],
    version: [DELETE, 1, 3, '2'],
    part: [DELETE, 'queue_sizes'],
    wallets: [DELETE, null, [], {}, { fetchedAt: 1, records: {} }, { fetchedAt: '1', records: [] }, { fetchedAt: 1, records: [], more: 1 }],
    more: ['x'],
  });
  yield* notAFile();
}

describe('wallets file check', () => {
  it('reads a file tonwatch wrote on its fast path, exactly as the zod schema does', () => {
    const quick = decodeWalletsFileQuickly(clone(FILE));
    const reference = walletsFileSchema.parse(clone(FILE));
    expect(quick).not.toBeNull();
    expect(quick).toStrictEqual(reference);
    expect(JSON.stringify(quick)).toBe(JSON.stringify(reference));
  });

  it('never accepts what zod refuses, never reads differently, and leaves anything unusual to zod', () => {
    // Whichever path it takes, decodeWalletsFile's verdict is zod's.
    const { cases, fast } = expectAgreement(mutations(), { schema: walletsFileSchema, quick: decodeWalletsFileQuickly, decode: decodeWalletsFile });
    expect(cases).toBeGreaterThan(500);
    // Sanity: the fast path does take valid variations, not only the unchanged file.
    expect(fast).toBeGreaterThan(20);
  });
});

/** A record as a version 3 line held it: the columns, the state's fields in order, the address book entry as an object. */
function v3RowOf(record: WalletRecord): unknown[] {
  const { state } = record;
  const row: unknown[] = [
    record.raw,
    record.fetchedAt,
    record.upstream,
    state === null ? null : WALLET_STATE_FIELDS.map((f) => state[f.name] ?? null),
    record.addressBook,
  ];
  if (record.metadata !== undefined) row.push(record.metadata);
  return JSON.parse(JSON.stringify(row)) as unknown[];
}

describe('wallets file, version 3 record lines', () => {
  const STATE_KEYS = WALLET_STATE_FIELDS.map((field) => field.name);
  /** The record object a row stands for, built independently of the decoder. */
  const objectOf = (row: unknown[]): Json => {
    const [raw, fetchedAt, upstream, state, addressBook, ...metadata] = row;
    const stateObject = Array.isArray(state) ? Object.fromEntries(STATE_KEYS.map((key, i) => [key, state[i]])) : state;
    return { raw, state: stateObject, addressBook, ...(metadata.length > 0 ? { metadata: metadata[0] } : {}), fetchedAt, upstream };
  };
  const rowsOfFile = FILE.wallets.records.map((record) => v3RowOf(record as unknown as WalletRecord));

  function* rowMutations(): Generator<[string, unknown[]]> {
    for (const [r, row] of rowsOfFile.entries()) {
      yield [`row ${r} unchanged`, clone(row)];
      for (let column = 0; column < row.length; column += 1) {
        for (const value of ODD_VALUES) {
          if (value === DELETE || value === undefined) continue;
          const changed = clone(row);
          changed[column] = clone(value);
          yield [`row ${r} column ${column} = ${shown(value)}`, changed];
        }
      }
      const state = row[3];
      if (!Array.isArray(state)) continue;
      for (let field = 0; field < state.length; field += 1) {
        for (const value of ODD_VALUES) {
          if (value === DELETE || value === undefined) continue;
          const changed = clone(row);
          (changed[3] as unknown[])[field] = clone(value);
          yield [`row ${r} state field ${STATE_KEYS[field]} = ${shown(value)}`, changed];
        }
      }
    }
  }

  it('writes each record so that it reads back as the zod schema reads the record', () => {
    for (const [i, record] of FILE.wallets.records.entries()) {
      const decoded = asSent(decodeWalletRow(rowsOfFile[i], createStringPool()));
      expect(decoded).toStrictEqual({ ok: true, record: walletRecordSchema.parse(clone(record)) });
    }
  });

  it('agrees with the zod schema on every changed column and state field, and keeps one copy of repeated strings', () => {
    let cases = 0;
    for (const [name, row] of rowMutations()) {
      cases += 1;
      const reference = walletRecordSchema.safeParse(objectOf(clone(row)));
      const decoded = asSent(decodeWalletRow(clone(row), createStringPool()));
      expect(decoded.ok, name).toBe(reference.success);
      if (decoded.ok && reference.success) {
        expect(decoded.record, name).toStrictEqual(reference.data);
        expect(JSON.stringify(decoded.record), name).toBe(JSON.stringify(reference.data));
      }
    }
    expect(cases).toBeGreaterThan(400);
    expect(decodeWalletRow([1, 2], createStringPool())).toMatchObject({ ok: false, problem: expect.stringMatching(/5 or 6 columns/) });
    expect(decodeWalletRow(['0:AB', 1, 'x', [1, 2], null], createStringPool())).toMatchObject({ ok: false, problem: expect.stringMatching(/12 fields/) });
  });
});

describe('wallets file, version 4 record lines', () => {
  /** Records written by one writer, then read back in order as loading reads them. */
  const roundTrip = (records: readonly WalletRecord[]) => {
    const write = createWalletRowWriter();
    const lines = records.map((record) => write(record));
    const expand = createRowExpander();
    const pool = createStringPool();
    const read = lines.map((line) => {
      const row: unknown = JSON.parse(line);
      expect(expand(row)).toBeNull();
      return asSent(decodeWalletRow(row, pool));
    });
    return { lines, read };
  };

  it('reads back every record as the zod schema reads it, key order included, with repeated values written once', () => {
    const records = FILE.wallets.records as unknown as WalletRecord[];
    // Each record three times: the second and third write the repeated values by reference.
    const thrice = [...records, ...records, ...records];
    const { lines, read } = roundTrip(thrice);
    read.forEach((decoded, i) => {
      const reference = walletRecordSchema.parse(clone(thrice[i]));
      expect(decoded).toStrictEqual({ ok: true, record: reference });
      if (decoded.ok) expect(JSON.stringify(decoded.record)).toBe(JSON.stringify(reference));
    });
    const [first = '', , , again = ''] = lines;
    expect(first).toContain('"toncenter"');
    expect(first).toContain('"wallet v5 r1"');
    expect(again).not.toContain('toncenter');
    expect(again).not.toContain('wallet v5 r1');
    expect(again).not.toContain('interfaces');
    // The state's address, the record's key, is written once.
    expect(again.split(records[0]?.raw ?? '?')).toHaveLength(2);
  });

  it('reads back random records: shared and distinct values, nulls, address book entries with and without other fields, metadata', () => {
    const random = createRandom(17);
    const pick = <T>(values: readonly T[]): T => random.pick(values);
    for (let round = 0; round < 30; round += 1) {
      const records = Array.from({ length: random.int(1, 40) }, (_, i): WalletRecord => {
        const raw = `0:${(round * 100 + i).toString(16).toUpperCase().padStart(64, '0')}`;
        const state = random.chance(0.1)
          ? null
          : {
              address: random.chance(0.9) ? raw : `0:${'A'.repeat(64)}`,
              balance: pick(['0', '15', null]),
              code_hash: pick([HASH, 'bm90IGEgaGFzaA==', null, `h${random.int(0, 3)}`]),
              extra_currencies: pick([{}, { '100': '5' }]),
              is_signature_allowed: pick([true, false, null]),
              is_wallet: pick([true, false]),
              last_transaction_hash: pick([HASH, null]),
              last_transaction_lt: pick(['7', null]),
              seqno: pick([0, 12, null]),
              status: pick(['active', 'uninit', 'frozen', 'nonexist']),
              wallet_id: pick([698983191, null]),
              wallet_type: pick(['wallet v4 r2', 'wallet v5 r1', null]),
            };
        const addressBook = pick([
          null,
          { user_friendly: `UQ${i}`, domain: null },
          { user_friendly: `EQ${i}`, domain: pick(['a.ton', null]), interfaces: [pick(['wallet_v4r2', 'wallet_v5r1'])] },
          // Held derived once read (accounts/address-book.ts).
          { user_friendly: friendlyForm(raw, { bounceable: random.chance(0.5), testnet: false }), domain: null, interfaces: ['wallet_v5r1'] },
        ]);
        return {
          raw,
          state,
          addressBook,
          ...(random.chance(0.2) ? { metadata: { note: pick(['x', 'y']) } } : {}),
          fetchedAt: 1795000000000 + random.int(0, 5),
          upstream: pick(['toncenter', 'mirror']),
        } as WalletRecord;
      });
      const { read } = roundTrip(records);
      read.forEach((decoded, i) => {
        const reference = walletRecordSchema.parse(clone(records[i]));
        expect(decoded.ok && JSON.stringify(decoded.record), `round ${round} record ${i}`).toBe(JSON.stringify(reference));
      });
    }
  });

  it('writes an address book entry held derived as the line of the entry itself in version 5 (the wire), domains and other fields included', () => {
    const interning = createInterning();
    const entries = (i: number, raw: string) => [
      { user_friendly: friendlyForm(raw, { bounceable: false, testnet: false }), domain: null, interfaces: ['wallet_v5r1'] },
      { user_friendly: friendlyForm(raw, { bounceable: true, testnet: false }), domain: `w${i % 3}.ton`, interfaces: [], more: { a: i % 2 } },
      { user_friendly: friendlyForm(raw, { bounceable: false, testnet: true }), domain: null },
      { user_friendly: friendlyForm(raw, { bounceable: true, testnet: true }), interfaces: ['wallet_v4r2'] },
    ];
    const records = Array.from({ length: 40 }, (_, i) => {
      const raw = `0:${i.toString(16).toUpperCase().padStart(64, '0')}`;
      const entry = entries(i, raw)[i % 4] as AddressBookEntry;
      return { raw, state: null, addressBook: entry, metadata: undefined, fetchedAt: 1795000000000 + i, upstream: 'toncenter' };
    });
    const held = records.map((r) => ({ ...r, addressBook: heldBook(r.addressBook, r.raw, interning) }));
    expect(held.every((r) => r.addressBook !== null && isDerivedBook(r.addressBook))).toBe(true);
    const [asSent, asHeld] = [createWalletRowWriter(0, 5), createWalletRowWriter(0, 5)];
    expect(held.map(asHeld)).toEqual(records.map(asSent));
    expect(asHeld.references()).toEqual(asSent.references());
  });

  it('says what is wrong with a reference or an address book entry, and leaves other mistakes to the record check', () => {
    const expand = createRowExpander();
    const state = ['0:AB', '1', 'hash', {}, null, true, null, null, null, 'active', null, null];
    expect(expand(['0:AB', 1, 'up', [...state], null])).toBeNull();
    // 0 is 'up', 1 'hash', 2 'active'; nothing was written as 3.
    expect(expand(['0:CD', 1, 3, [...state], null])).toBe('3 refers to no value written before');
    expect(expand(['0:CD', 1, 0.5, [...state], null])).toBe('0.5 refers to no value written before');
    expect(expand(['0:CD', 1, 0, [...state], ['UQ', null]])).toMatch(/addressBook: not null or \[user_friendly, domain/);
    expect(expand(['0:CD', 1, 0, [...state], ['UQ', null, 'text']])).toMatch(/other fields are not an object/);
    // A reference to a value of the wrong kind reads as that value: the record check refuses it.
    const row = ['0:CD', 1, 0, [...state.slice(0, 9), 0, null, null], null];
    expect(expand(row)).toBeNull();
    expect(decodeWalletRow(row, createStringPool())).toMatchObject({ ok: true });
    const wrongKind = ['0:EF', 1, 0, [null, '1', null, {}, null, true, null, null, null, 1, null, null], ['UQ', null, {}]];
    expect(expand(wrongKind)).toBeNull();
    // status 1 is 'hash': a string, so the record reads; a book's other fields referring to a string are refused.
    expect(expand(['0:EF', 1, 0, null, ['UQ', null, 0]])).toMatch(/other fields are not an object/);
  });
});
