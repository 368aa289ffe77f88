import { isPlainRecord, WALLET_FIELD_CHECKS } from '../../domain/wallet-field-checks.js';
import { WALLET_STATE_FIELDS, type WalletFieldName } from '../../domain/wallet-state.js';
import { COLUMN, isBookAsParsed, isNumber, issueText, STATE_KEYS, WALLET_COLUMNS, walletRecordSchema } from './file-format.js';
import type { WalletRecord } from '../../accounts/types.js';
import { entryOfBook, friendlyOfBook, heldBookAsRecent, isDerivedBook, type HeldBook } from '../../accounts/address-book.js';
import { pooled, type StringPool } from './string-pool.js';
import { plainState } from '../../accounts/packed-state.js';
import { sharedIfEmpty, type ServedWalletState } from '../../domain/wallet-state.js';
import { bookOfColumns, DERIVED_BOOK_LENGTH, derivedBookColumns, PACKED_STATE_LENGTHS, packedStateColumns, stateOfColumns } from './file-packed.js';

/**
 * The record lines of a version 3 to 6 wallets file (the format: file-format.ts): written
 * one record at a time, with repeated values by reference; read one line at a time, the
 * references resolved, each record built as walletRecordSchema would make it and checked by
 * hand, with zod deciding only what that check cannot vouch for.
 */

/** State columns written by reference (values that repeat across wallets). */
const REFERENCED_STATE_FIELDS: readonly WalletFieldName[] = ['code_hash', 'status', 'wallet_type'];

/** Writes the record lines of one file; `references()` lists what each reference number stands for, in number order. */
export type WalletRowWriter = ((record: WalletRecord) => string) & { readonly references: () => readonly unknown[] };

/**
 * The record lines of one file, in order: each call gives one record's line (without the
 * newline), writing a repeated value in full the first time and by reference after.
 * `wallOffset` turns each fetch time (process clock) into the wall time the file carries.
 * `version` 6 writes what a record holds packed as such (file-packed.ts); 5, as served.
 */
export function createWalletRowWriter(wallOffset = 0, version: 5 | 6 = 6): WalletRowWriter {
  const table: unknown[] = [];
  const strings = new Map<string, number>();
  const extras = new Map<string, number>();
  const stringRef = (value: string | null): string | number | null => {
    if (value === null) return null;
    const known = strings.get(value);
    if (known !== undefined) return known;
    strings.set(value, table.length);
    table.push(value);
    return value;
  };
  const extrasRef = (value: object, key = JSON.stringify(value)): object | number => {
    const known = extras.get(key);
    if (known !== undefined) return known;
    extras.set(key, table.length);
    table.push(value);
    return value;
  };
  /** A kind or an entry's other fields, shared by many records: its text made once per object. */
  const keys = new Map<object, string>();
  const sharedRef = (value: object): object | number => {
    let key = keys.get(value);
    if (key === undefined) keys.set(value, (key = JSON.stringify(value)));
    return extrasRef(value, key);
  };
  /** A derived entry's other fields (its shared `rest` but the domain), and their key: made once per `rest` object. */
  const othersOf = new Map<object, { readonly value: Record<string, unknown>; readonly key: string }>();
  const bookColumns = (held: NonNullable<WalletRecord['addressBook']>, raw: string): unknown[] => {
    if (!isDerivedBook(held)) {
      const { user_friendly: friendly, domain, ...rest } = entryOfBook(held, raw);
      return [friendly, domain, extrasRef(rest)];
    }
    let others = othersOf.get(held.rest);
    if (others === undefined) {
      const { domain: _domain, ...value } = held.rest;
      others = { value, key: JSON.stringify(value) };
      othersOf.set(held.rest, others);
    }
    return [friendlyOfBook(held, raw), held.rest['domain'], extrasRef(others.value, others.key)];
  };
  const line = (record: WalletRecord): string => {
    const { raw, state: fields, addressBook } = record;
    // References are numbered in the order the reader meets the values: column by column.
    const upstream = stringRef(record.upstream);
    let state: unknown[] | null = fields === null || version === 5 ? null : packedStateColumns(fields, raw, sharedRef);
    if (fields !== null && state === null) {
      state = WALLET_STATE_FIELDS.map((field) => fields[field.name] ?? null);
      if (state[COLUMN.address] === raw) state[COLUMN.address] = null;
      for (const name of REFERENCED_STATE_FIELDS) state[COLUMN[name]] = stringRef(fields[name] as string | null);
    }
    let book: unknown[] | null = null;
    if (addressBook !== null) book = version === 6 && isDerivedBook(addressBook) ? derivedBookColumns(addressBook, sharedRef) : bookColumns(addressBook, raw);
    const row: unknown[] = [raw, record.fetchedAt + wallOffset, upstream, state, book];
    if (record.metadata !== undefined) row.push(record.metadata);
    return JSON.stringify(row);
  };
  return Object.assign(line, { references: (): readonly unknown[] => table });
}

/**
 * Turns the record lines of one version 4, 5 or 6 file, parsed, in order (or any one of them,
 * given the references a version 5 or 6 file ends with), into version 3 rows, in place:
 * references replaced by what they stand for, a null state address by the key, the
 * address book entry back into an object. With `packedRows` (version 6), a packed state's
 * and a derived entry's columns (file-packed.ts) stay columns, their references resolved.
 * Returns what is wrong with a line, or null (a line of the wrong shape is left for
 * decodeWalletRow to refuse).
 */
export function createRowExpander(references?: readonly unknown[], packedRows = false): (row: unknown) => string | null {
  // Given the file's list of references, a line is read on its own; else the lines in order make the list.
  const values: unknown[] = references === undefined ? [] : [...references];
  const resolve = (value: unknown, kept: (value: unknown) => boolean): unknown => {
    if (typeof value === 'number') {
      if (!Number.isInteger(value) || value < 0 || value >= values.length) throw new Error(`${value} refers to no value written before`);
      return values[value];
    }
    if (references === undefined && kept(value)) values.push(value);
    return value;
  };
  const isString = (value: unknown): boolean => typeof value === 'string';
  return (line) => {
    if (!Array.isArray(line) || line.length < 5) return null;
    const row = line as unknown[];
    try {
      row[2] = resolve(row[2], isString);
      const state: unknown = row[3];
      if (Array.isArray(state) && state.length === STATE_KEYS.length) {
        const columns = state as unknown[];
        if (columns[COLUMN.address] === null) columns[COLUMN.address] = row[0];
        for (const name of REFERENCED_STATE_FIELDS) columns[COLUMN[name]] = resolve(columns[COLUMN[name]], isString);
      } else if (packedRows && Array.isArray(state) && PACKED_STATE_LENGTHS.includes(state.length)) {
        (state as unknown[])[2] = resolve(state[2], isPlainRecord);
      }
      const book: unknown = row[4];
      if (packedRows && Array.isArray(book) && book.length === DERIVED_BOOK_LENGTH) {
        (book as unknown[])[1] = resolve(book[1], isPlainRecord);
      } else if (book !== null) {
        if (!Array.isArray(book) || book.length !== 3)
          return `addressBook: not null or [user_friendly, domain, the other fields]${packedRows ? ' or [first character, the other fields]' : ''}`;
        const [friendly, domain, others] = book as unknown[];
        const rest = resolve(others, isPlainRecord);
        if (!isPlainRecord(rest)) return "addressBook: the entry's other fields are not an object";
        row[4] = { user_friendly: friendly, domain, ...rest };
      }
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  };
}

/** Pool columns: the upstream's, after the state's. */
const UPSTREAM_POOL = STATE_KEYS.length;

/**
 * A state as walletStateSchema makes it, from its columns: one object literal, its keys
 * in WALLET_STATE_FIELDS order (a test holds the two together; a field missing here does
 * not compile). The address repeats the record's raw key: the same string is kept.
 */
function stateOfRow(row: readonly unknown[], raw: unknown, pool: StringPool): Record<WalletFieldName, unknown> {
  const address = row[COLUMN.address];
  return {
    address: address === raw ? raw : address,
    balance: row[COLUMN.balance],
    code_hash: pooled(pool, COLUMN.code_hash, row[COLUMN.code_hash]),
    extra_currencies: sharedIfEmpty(row[COLUMN.extra_currencies]),
    is_signature_allowed: row[COLUMN.is_signature_allowed],
    is_wallet: row[COLUMN.is_wallet],
    last_transaction_hash: row[COLUMN.last_transaction_hash],
    last_transaction_lt: row[COLUMN.last_transaction_lt],
    seqno: row[COLUMN.seqno],
    status: pooled(pool, COLUMN.status, row[COLUMN.status]),
    wallet_id: row[COLUMN.wallet_id],
    wallet_type: pooled(pool, COLUMN.wallet_type, row[COLUMN.wallet_type]),
  };
}

/**
 * A record line, parsed, as the record it holds; or why not. The record is what
 * walletRecordSchema makes of the record object the line stands for: built here, checked
 * by hand, and given to zod only when the check cannot vouch for it.
 */
export function decodeWalletRow(row: unknown, pool: StringPool, packedRows = true): { ok: true; record: WalletRecord } | { ok: false; problem: string } {
  if (!Array.isArray(row) || (row.length !== 5 && row.length !== 6))
    return { ok: false, problem: `not a record: an array of 5 or 6 columns (${WALLET_COLUMNS.join(', ')})` };
  const [key, fetchedAt, upstream, stateRow, bookRow, metadata] = row as unknown[];
  const raw = typeof key === 'string' ? (pool.keyOf(key) ?? key) : key;
  // A packed state's or derived entry's columns (only in a version 6 row) are made held here and need no other check.
  let state: unknown = stateRow;
  let stateHeld = false;
  if (Array.isArray(stateRow) && stateRow.length === STATE_KEYS.length) state = stateOfRow(stateRow, raw, pool);
  else if (packedRows && Array.isArray(stateRow) && typeof raw === 'string' && PACKED_STATE_LENGTHS.includes(stateRow.length)) {
    const held = stateOfColumns(stateRow, raw, pool.held);
    if (typeof held === 'string') return { ok: false, problem: `state: ${held}` };
    [state, stateHeld] = [held, true];
  } else if (Array.isArray(stateRow)) return { ok: false, problem: `state: not an array of the ${STATE_KEYS.length} fields` };
  let addressBook: unknown = bookRow;
  const bookHeld = packedRows && Array.isArray(bookRow) && bookRow.length === DERIVED_BOOK_LENGTH && typeof raw === 'string';
  if (bookHeld) {
    addressBook = bookOfColumns(bookRow, raw, pool.held);
    if (typeof addressBook === 'string') return { ok: false, problem: addressBook };
  }
  const record: Record<string, unknown> =
    row.length === 6
      ? { raw, state, addressBook, metadata, fetchedAt, upstream: pooled(pool, UPSTREAM_POOL, upstream) }
      : { raw, state, addressBook, fetchedAt, upstream: pooled(pool, UPSTREAM_POOL, upstream) };
  // The record was built here, its keys in the schema's order: only the values need checking.
  if (isRowAsParsed(raw, fetchedAt, upstream, stateHeld ? null : stateRow, bookHeld ? null : addressBook))
    return { ok: true, record: withHeldBook(record as unknown as WalletRecord, pool) };
  // zod words what is wrong, and takes the served forms of what is held (a held state or entry is not one).
  const served = {
    ...record,
    state: stateHeld ? plainState(state as ServedWalletState) : state,
    addressBook: bookHeld ? entryOfBook(addressBook as HeldBook, raw) : addressBook,
  };
  const parsed = walletRecordSchema.safeParse(served);
  return parsed.success ? { ok: true, record: withHeldBook(parsed.data as WalletRecord, pool) } : { ok: false, problem: issueText(parsed.error.issues[0]) };
}

/** The record with its state and address book entry as held (packed, derived where they can be), in place: the record is this decode's own. */
function withHeldBook(record: WalletRecord, pool: StringPool): WalletRecord {
  if (record.state !== null) (record as { state: WalletRecord['state'] }).state = pool.pack(record.state);
  const book = record.addressBook;
  if (book !== null && !isDerivedBook(book))
    (record as { addressBook: WalletRecord['addressBook'] }).addressBook = heldBookAsRecent(book, record.raw, pool.interning, pool.books);
  return record;
}

/** isRecordAsParsed for the values of a record line (metadata takes anything). */
function isRowAsParsed(raw: unknown, fetchedAt: unknown, upstream: unknown, state: unknown, addressBook: unknown): boolean {
  if (typeof raw !== 'string' || !isNumber(fetchedAt) || typeof upstream !== 'string') return false;
  if (addressBook !== null && !isBookAsParsed(addressBook)) return false;
  if (state === null) return true;
  if (!Array.isArray(state)) return false;
  for (let i = 0; i < WALLET_FIELD_CHECKS.length; i += 1) {
    const { required, check } = WALLET_FIELD_CHECKS[i] as (typeof WALLET_FIELD_CHECKS)[number];
    const field: unknown = state[i];
    if (!(required ? check(field) : field === null || check(field))) return false;
  }
  return true;
}
