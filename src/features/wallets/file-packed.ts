import { friendlyForm } from '../../ton/address.js';
import { FIELD_CHECKS, isPlainRecord, WALLET_FIELD_CHECKS } from '../../domain/wallet-field-checks.js';
import type { ServedWalletState } from '../../domain/wallet-state.js';
import type { Interning } from '../../domain/interning.js';
import { internedKind, KIND_FIELDS, PACKED_BYTES, packedParts, stateKind, stateOfParts, type StateKind } from '../../accounts/packed-state.js';
import { derivedBook, flagsOfFormCharacter, formCharacterOf, type DerivedBook, type HeldBook } from '../../accounts/address-book.js';

/**
 * The columns a version 6 record line (file-format.ts) gives what a record holds packed, so
 * that a load makes the held objects from them without packing or deriving again:
 * - a state held packed (accounts/packed-state.ts) as `[bytes, seqno, kind]`, or
 *   `[bytes, seqno, kind, address]` when its address is not the record's key: `bytes` the
 *   base64 of its 48 bytes (balance and logical time, 8 bytes each high first, then the
 *   last transaction's hash), `kind` the object of the seven fields wallets of a kind share
 *   (written once, then by reference);
 * - an address book entry held derived (accounts/address-book.ts) as `[first, others]`:
 *   `first` the first character of its user-friendly form (which says its flags), `others`
 *   the entry's other fields, domain first (written once, then by reference).
 * Any other state or entry keeps the columns of version 5 (file-rows.ts).
 */

/** A state's or entry's columns written this way have this many entries (a version 5 state has 12, an entry 3). */
export const PACKED_STATE_LENGTHS: readonly number[] = [3, 4];
export const DERIVED_BOOK_LENGTH = 2;

/** What a load keeps once per object it read (a reference's value is one object however often it is referred to). */
export interface HeldPartsMemo {
  readonly interning: Interning;
  /** A kind read, as held, or what is wrong with it. */
  readonly kinds: WeakMap<object, StateKind | string>;
  /** An entry's other fields read, as the derived entry for each first character, what is wrong with them, or null past the interning's limit. */
  readonly books: WeakMap<object, Map<string, DerivedBook | string | null>>;
}

export function createHeldPartsMemo(interning: Interning): HeldPartsMemo {
  return { interning, kinds: new WeakMap(), books: new WeakMap() };
}

/** A state's version 6 columns, `ref` writing the kind; null for a state not held packed. */
export function packedStateColumns(state: ServedWalletState, raw: string, ref: (kind: object) => unknown): unknown[] | null {
  const parts = packedParts(state);
  if (parts === null) return null;
  const columns = [btoa(parts.bytes), parts.seqno, ref(parts.kind)];
  if (state.address !== raw) columns.push(state.address);
  return columns;
}

/** A derived entry's version 6 columns, `ref` writing its other fields. */
export function derivedBookColumns(book: DerivedBook, ref: (others: object) => unknown): unknown[] {
  return [formCharacterOf(book), ref(book.rest)];
}

/** PACKED_BYTES as base64, without padding. */
const BASE64_LENGTH = 64;
/** Each field of a kind with its check: a persisted state's, but extra currencies never null (a served state's are `{}`). */
const KIND_CHECKS = new Map(
  WALLET_FIELD_CHECKS.filter(({ name }) => (KIND_FIELDS as readonly string[]).includes(name)).map(({ name, required, check }) => [
    name,
    required || name === 'extra_currencies' ? check : (value: unknown) => value === null || check(value),
  ]),
);

/** The packed state a version 6 state's columns (references resolved) stand for, or what is wrong with them. */
export function stateOfColumns(columns: readonly unknown[], raw: string, memo: HeldPartsMemo): ServedWalletState | string {
  const [bytes, seqno, kindValue, address = raw] = columns;
  const held = typeof bytes === 'string' && bytes.length === BASE64_LENGTH ? bytesOf(bytes) : undefined;
  if (held === undefined) return `not ${PACKED_BYTES} bytes as base64`;
  if (seqno !== null && !FIELD_CHECKS.integer(seqno)) return 'seqno is not an integer or null';
  if (typeof address !== 'string') return 'address is not a string';
  const kind = kindOf(kindValue, memo);
  if (typeof kind === 'string') return kind;
  return stateOfParts(address, seqno as number | null, kind, held);
}

/** The bytes of standard base64 text as a one-byte string (atob's, several times faster here than a Buffer's); undefined unless PACKED_BYTES. */
function bytesOf(text: string): string | undefined {
  try {
    const bytes = atob(text);
    return bytes.length === PACKED_BYTES ? bytes : undefined;
  } catch {
    return undefined;
  }
}

function kindOf(value: unknown, memo: HeldPartsMemo): StateKind | string {
  if (!isPlainRecord(value)) return 'the kind is not an object';
  let kind = memo.kinds.get(value);
  if (kind === undefined) {
    const wrong = KIND_FIELDS.find((name) => KIND_CHECKS.get(name)?.(value[name]) !== true);
    if (Object.keys(value).length !== KIND_FIELDS.length) kind = `the kind has not exactly the fields ${KIND_FIELDS.join(', ')}`;
    else if (wrong !== undefined) kind = `the kind's ${wrong} is not valid`;
    else kind = internedKind(stateKind(value as unknown as StateKind), memo.interning);
    memo.kinds.set(value, kind);
  }
  return kind;
}

/** The entry version 6 columns (references resolved) stand for, held derived, or what is wrong with them. */
export function bookOfColumns(columns: readonly unknown[], raw: string, memo: HeldPartsMemo): HeldBook | string {
  const [first, others] = columns;
  const flags = typeof first === 'string' ? flagsOfFormCharacter(first) : undefined;
  if (flags === undefined || typeof first !== 'string') return "addressBook: the form's first character is not one of E, U, k, 0";
  if (!isPlainRecord(others)) return "addressBook: the entry's other fields are not an object";
  let byFirst = memo.books.get(others);
  if (byFirst === undefined) {
    byFirst = new Map();
    memo.books.set(others, byFirst);
  }
  let book = byFirst.get(first);
  if (book === undefined) {
    const domain = others['domain'];
    if (Object.keys(others)[0] !== 'domain' || (domain !== null && typeof domain !== 'string'))
      book = 'addressBook: the domain is not the first of the other fields';
    else book = derivedBook(flags, others, memo.interning) ?? null;
    byFirst.set(first, book);
  }
  // Past the interning's limit the entry is held as it is served, not derived.
  return book ?? ({ user_friendly: friendlyForm(raw, flags), ...others } as HeldBook);
}
