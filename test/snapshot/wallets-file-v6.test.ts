import { describe, expect, it } from 'vitest';
import { entryOfBook, heldBook, isDerivedBook } from '../../src/accounts/address-book.js';
import { isPackedState, packedParts, plainState } from '../../src/accounts/packed-state.js';
import { packedState } from '../helpers/wallets.js';
import type { WalletRecord } from '../../src/accounts/types.js';
import { createInterning, type Interning } from '../../src/domain/interning.js';
import type { AddressBookEntry } from '../../src/domain/wallet-state.js';
import { decodeWalletsBytes, encodeWallets } from '../../src/features/wallets/file.js';
import { walletsHeaderLine } from '../../src/features/wallets/file-format.js';
import { createRowExpander, createWalletRowWriter, decodeWalletRow } from '../../src/features/wallets/file-rows.js';
import { createStringPool, type StringPool } from '../../src/features/wallets/string-pool.js';
import { decodeRecord, encodeRecord } from '../../src/features/wallets/wire.js';
import { friendlyForm } from '../../src/ton/address.js';
import { rawAddress } from '../helpers/addresses.js';
import { walletState } from '../helpers/wallets.js';

/**
 * Version 6 of the wallets file: a state held packed and an address book entry held
 * derived are written as held and read back as held, without packing or deriving again;
 * what they serve is the same (the golden test pins served bytes after a file round trip).
 */

/** A record as a poll holds it: its state packed and its entry derived through `interning`. */
function polled(i: number, interning: Interning, over: Partial<WalletRecord> = {}): WalletRecord {
  const raw = rawAddress(i);
  const entry: AddressBookEntry = { user_friendly: friendlyForm(raw, { bounceable: false, testnet: false }), domain: null, interfaces: ['wallet_v4r2'] };
  const state = walletState(raw, { seqno: i % 3 === 0 ? null : i, balance: i === 1 ? '18446744073709551615' : String(1_000_000 + i) });
  return {
    raw,
    state: packedState(state, interning),
    addressBook: heldBook(entry, raw, interning),
    metadata: undefined,
    fetchedAt: 5 + i,
    upstream: 'u',
    ...over,
  };
}

/** What a record serves, as JSON. */
const served = (r: WalletRecord): string =>
  JSON.stringify({
    ...r,
    state: r.state === null ? null : plainState(r.state),
    addressBook: r.addressBook === null ? null : entryOfBook(r.addressBook, r.raw),
  });

/** Lines written by one writer, read back in order as a load reads them. */
function readInOrder(lines: readonly string[], pool = createStringPool()): WalletRecord[] {
  const expand = createRowExpander(undefined, true);
  return lines.map((line) => {
    const row: unknown = JSON.parse(line);
    expect(expand(row)).toBeNull();
    const decoded = decodeWalletRow(row, pool, true);
    if (!decoded.ok) throw new Error(decoded.problem);
    return decoded.record;
  });
}

describe('wallets file, version 6 record lines', () => {
  it('writes a packed state as its bytes, seqno and kind, and a derived entry as its first character and other fields, each shared value once', () => {
    const interning = createInterning();
    const records = [1, 2, 3].map((i) => polled(i, interning));
    const write = createWalletRowWriter(0, 6);
    const [first, second] = records.map((r) => JSON.parse(write(r)) as unknown[]);
    const kind = { ...packedParts(records[0]?.state ?? walletState('0:00'))?.kind };
    expect(first).toEqual([
      records[0]?.raw,
      6,
      'u',
      [expect.stringMatching(/^[A-Za-z0-9+/]{64}$/), 1, kind],
      ['U', { domain: null, interfaces: ['wallet_v4r2'] }],
    ]);
    // References: 0 the upstream, 1 the kind, 2 the entry's other fields.
    expect(second).toEqual([records[1]?.raw, 7, 0, [expect.any(String), 2, 1], ['U', 2]]);
    expect(write.references()).toEqual(['u', kind, { domain: null, interfaces: ['wallet_v4r2'] }]);
    // Nothing decimal, no form: the balance's text and the user-friendly form are made when served.
    expect(JSON.stringify(first)).not.toContain('1000001');
    expect(JSON.stringify(first)).not.toContain(friendlyForm(rawAddress(1), { bounceable: false, testnet: false }));
  });

  it('reads back what each record serves, the state packed and the entry derived, kinds and entries one object each', () => {
    const interning = createInterning();
    const records = Array.from({ length: 30 }, (_, i) =>
      polled(i, interning, i === 4 ? { state: packedState(walletState(rawAddress(99), { status: 'frozen' }), interning) } : {}),
    );
    const write = createWalletRowWriter(0, 6);
    const lines = records.map((r) => write(r));
    // A state whose address is not the record's key carries it as a fourth column.
    expect((JSON.parse(lines[4] ?? '') as unknown[][])[3]).toHaveLength(4);
    const pool = createStringPool(interning);
    const alone = createStringPool();
    for (const read of [readInOrder(lines, pool), lines.map((line) => readAlone(line, write.references(), alone))]) {
      read.forEach((r, i) => expect(served(r), `record ${i}`).toBe(served(records[i] as WalletRecord)));
      expect(read.every((r) => r.state !== null && isPackedState(r.state))).toBe(true);
      expect(read.every((r) => r.addressBook !== null && isDerivedBook(r.addressBook))).toBe(true);
      expect(new Set(read.map((r) => packedParts(r.state ?? walletState('0:00'))?.kind)).size).toBe(2);
      expect(new Set(read.map((r) => r.addressBook)).size).toBe(1);
    }
    // Read through the interning that polled them, the records share the poll's very kinds and entries.
    const same = readInOrder(lines, pool);
    expect(same[0]?.addressBook).toBe(records[0]?.addressBook);
    expect(packedParts(same[0]?.state ?? walletState('0:00'))?.kind).toBe(packedParts(records[0]?.state ?? walletState('0:00'))?.kind);
  });

  it('past the interning limits, reads each record as it serves, the entry held as served', () => {
    const records = Array.from({ length: 5 }, (_, i) => polled(i, createInterning()));
    const write = createWalletRowWriter(0, 6);
    const full = createStringPool(createInterning({ strings: 0, lists: 0, objects: 0 }));
    const read = readInOrder(
      records.map((r) => write(r)),
      full,
    );
    read.forEach((r, i) => expect(served(r)).toBe(served(records[i] as WalletRecord)));
    expect(read.some((r) => r.addressBook !== null && isDerivedBook(r.addressBook))).toBe(false);
  });

  it('says what is wrong with packed columns, and reads them only in a version 6 row', () => {
    const interning = createInterning();
    const line = JSON.parse(createWalletRowWriter(0, 6)(polled(1, interning))) as [string, number, string, unknown[], unknown[]];
    const [raw, at, up, [bytes, seqno, kind], book] = line;
    const problem = (state: unknown, entry: unknown = book): string | null => {
      const row = [raw, at, up, state, entry];
      const expanded = createRowExpander(undefined, true)(row);
      if (expanded !== null) return expanded;
      const decoded = decodeWalletRow(row, createStringPool(), true);
      return decoded.ok ? null : decoded.problem;
    };
    expect(problem([bytes, seqno, kind])).toBeNull();
    expect(problem([`${String(bytes).slice(0, 60)}`, seqno, kind])).toBe('state: not 48 bytes as base64');
    expect(problem([`${String(bytes).slice(0, 63)}*`, seqno, kind])).toBe('state: not 48 bytes as base64');
    expect(problem([bytes, 1.5, kind])).toBe('state: seqno is not an integer or null');
    expect(problem([bytes, seqno, kind, 7])).toBe('state: address is not a string');
    expect(problem([bytes, seqno, 'kind'])).toBe('state: the kind is not an object');
    expect(problem([bytes, seqno, 9])).toBe('9 refers to no value written before');
    expect(problem([bytes, seqno, { ...(kind as object), status: 3 }])).toBe("state: the kind's status is not valid");
    expect(problem([bytes, seqno, { ...(kind as object), extra_currencies: { 1: 'x' } }])).toBe("state: the kind's extra_currencies is not valid");
    expect(problem([bytes, seqno, { ...(kind as object), more: 1 }])).toMatch(/^state: the kind has not exactly the fields/);
    expect(problem([bytes, seqno], book)).toBe('state: not an array of the 12 fields');
    expect(problem([bytes, seqno, kind], ['Q', { domain: null }])).toBe("addressBook: the form's first character is not one of E, U, k, 0");
    expect(problem([bytes, seqno, kind], ['E', { interfaces: [] }])).toBe('addressBook: the domain is not the first of the other fields');
    expect(problem([bytes, seqno, kind], ['E', { domain: 1 }])).toBe('addressBook: the domain is not the first of the other fields');
    expect(problem([bytes, seqno, kind], ['E', 'x'])).toBe("addressBook: the entry's other fields are not an object");
    // What the columns do not decide, zod words.
    expect(decodeWalletRow([raw, 'then', up, [bytes, seqno, kind], book], createStringPool(), true)).toMatchObject({ ok: false, problem: /^fetchedAt / });
    // A version 5 row knows no packed columns.
    expect(createRowExpander(undefined, false)([raw, at, up, null, book])).toMatch(/^addressBook: not null or \[user_friendly, domain, the other fields\]$/);
    expect(decodeWalletRow([raw, at, up, [bytes, seqno, kind], null], createStringPool(), false)).toMatchObject({
      ok: false,
      problem: 'state: not an array of the 12 fields',
    });
  });

  it('loads a version 6 file, and still loads a version 5 file of the same records, packing and deriving as it reads', async () => {
    const interning = createInterning();
    const records = Array.from({ length: 1500 }, (_, i) => polled(i, interning));
    const snapshot = { fetchedAt: 9, wallets: new Map(records.map((r) => [r.raw, r])) };
    const v6 = Buffer.concat([...encodeWallets(snapshot, 0)]);
    const v5Writer = createWalletRowWriter(0, 5);
    const v5Lines = [walletsHeaderLine(9, records.length).replace('"version":6', '"version":5'), ...records.map((r) => v5Writer(r))];
    const v5 = Buffer.from(`${[...v5Lines, JSON.stringify({ references: v5Writer.references(), lineBytes: '' })].join('\n')}\n`);
    expect(v6.length).toBeLessThan(0.75 * v5.length);
    for (const bytes of [v6, v5]) {
      const read = await decodeWalletsBytes(bytes, (wall) => wall);
      if (!read.ok) throw new Error(read.problem);
      const again = [...read.wallets.wallets.values()];
      again.forEach((r, i) => expect(served(r)).toBe(served(records[i] as WalletRecord)));
      expect(again.every((r) => r.state !== null && isPackedState(r.state) && r.addressBook !== null && isDerivedBook(r.addressBook))).toBe(true);
    }
  });

  it('hands replicas version 5 lines, which every release reads, and reads a version 6 line from a newer replica', () => {
    const record = polled(2, createInterning());
    const line = encodeRecord(record, 0);
    expect(line).toContain('"1000002"');
    expect(line).toContain(friendlyForm(record.raw, { bounceable: false, testnet: false }));
    const newer = createWalletRowWriter(0, 6)(record);
    for (const text of [line, newer]) {
      const read = decodeRecord(text, (wall) => wall);
      expect(read === null ? null : served(read)).toBe(served(record));
    }
  });
});

/** One line read on its own, given the file's references. */
function readAlone(line: string, references: readonly unknown[], pool: StringPool): WalletRecord {
  const row: unknown = JSON.parse(line);
  expect(createRowExpander(references, true)(row)).toBeNull();
  const decoded = decodeWalletRow(row, pool, true);
  if (!decoded.ok) throw new Error(decoded.problem);
  return decoded.record;
}
