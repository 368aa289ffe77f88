import { friendlyForm, isFriendlyFormOf, type FriendlyFormOptions } from '../ton/address.js';
import type { AddressBookEntry, ServedWalletState } from '../domain/wallet-state.js';
import type { Interning } from '../domain/interning.js';
import { equalOrSameItems } from './same-state.js';

const DERIVED = Symbol('user_friendly made from the raw address');

/**
 * An upstream's entry whose user_friendly is the form friendlyForm makes of the record's
 * raw address, with these flags: nearly every entry. It is held without that string, as one
 * frozen object shared by every entry with the same flags and other fields, and the form is
 * made again when served. A wallet holds 112 B less: the entry and its 48-character string.
 */
export interface DerivedBook extends FriendlyFormOptions {
  readonly [DERIVED]: true;
  /** The entry's other fields, in its order (domain, interfaces, …). */
  readonly rest: Readonly<Record<string, unknown>>;
  /** The keys of `rest`, in order. */
  readonly keys: readonly string[];
}

/** An address book entry as a record holds it: as the upstream sent it, or derived. */
export type HeldBook = AddressBookEntry | DerivedBook;

export function isDerivedBook(book: HeldBook): book is DerivedBook {
  return DERIVED in book;
}

/** The flags a user-friendly form's first character stands for (the tag byte's top six bits). */
const FLAGS_BY_FIRST_CHARACTER: Readonly<Record<string, FriendlyFormOptions>> = {
  E: { bounceable: true, testnet: false },
  U: { bounceable: false, testnet: false },
  k: { bounceable: true, testnet: true },
  '0': { bounceable: false, testnet: true },
};

/**
 * The entry as a record keeps it: derived when its user_friendly comes first and is exactly
 * what friendlyForm makes of `raw` (so the served entry comes out the same, key order
 * included), and the interning still has room; else the entry itself.
 */
export function heldBook(entry: AddressBookEntry, raw: string, interning: Interning): HeldBook {
  const friendly = entry.user_friendly;
  if (typeof friendly !== 'string' || friendly.length !== 48) return entry;
  const flags = FLAGS_BY_FIRST_CHARACTER[friendly.charAt(0)];
  if (flags === undefined || !startsWithFriendly(entry) || !isFriendlyFormOf(friendly, raw, flags)) return entry;
  const { user_friendly: _made, ...rest } = entry;
  return derivedBook(flags, rest, interning) ?? entry;
}

/**
 * The derived entry whose user-friendly form has these flags and whose other fields are
 * `rest` (in its key order), kept once through `interning`; undefined past its limit.
 */
export function derivedBook(flags: FriendlyFormOptions, rest: Readonly<Record<string, unknown>>, interning: Interning): DerivedBook | undefined {
  const json = JSON.stringify(rest);
  const key = `${flags.bounceable ? 'b' : 'n'}${flags.testnet ? 't' : 'm'}${json}`;
  const made = (): DerivedBook => {
    const own = deepFrozen(JSON.parse(json) as Record<string, unknown>);
    return Object.freeze({ [DERIVED]: true as const, bounceable: flags.bounceable, testnet: flags.testnet, rest: own, keys: Object.freeze(Object.keys(own)) });
  };
  return interning.shared(key, made);
}

/** The flags a user-friendly form's first character stands for; undefined for any other character. */
export function flagsOfFormCharacter(first: string): FriendlyFormOptions | undefined {
  return Object.hasOwn(FLAGS_BY_FIRST_CHARACTER, first) ? FLAGS_BY_FIRST_CHARACTER[first] : undefined;
}

/** The first character of the user-friendly forms a derived entry serves. */
export function formCharacterOf(book: DerivedBook): string {
  if (book.bounceable) return book.testnet ? 'k' : 'E';
  return book.testnet ? '0' : 'U';
}

/**
 * heldBook, trying first the derived book last made for a form of the same first character
 * (its flags): the records of a file or of another replica's stream nearly all share one of
 * a few, and the check costs less than heldBook's copy, key and lookup. `recent` is the
 * caller's, by first character.
 */
export function heldBookAsRecent(entry: AddressBookEntry, raw: string, interning: Interning, recent: Map<string, DerivedBook>): HeldBook {
  const first = typeof entry.user_friendly === 'string' ? entry.user_friendly.charAt(0) : '';
  const known = recent.get(first);
  if (known !== undefined && derivedStill(entry, known, raw)) return known;
  const held = heldBook(entry, raw, interning);
  if (isDerivedBook(held)) recent.set(first, held);
  return held;
}

/**
 * Whether `entry` is what `book` holds for `raw`: the check a poll makes of every wallet,
 * nearly always true, without heldBook's copy and key. Lists (`interfaces`) compare item by
 * item; any other object makes it false (heldBook then decides).
 */
export function derivedStill(entry: AddressBookEntry, book: DerivedBook, raw: string): boolean {
  let i = -1;
  for (const key in entry) {
    if (i === -1 ? key !== 'user_friendly' : key !== book.keys[i] || !equalOrSameItems(entry[key], book.rest[key])) return false;
    i += 1;
  }
  return i === book.keys.length && typeof entry.user_friendly === 'string' && isFriendlyFormOf(entry.user_friendly, raw, book);
}

/** The entry a held one serves. */
export function entryOfBook(book: HeldBook, raw: string): AddressBookEntry {
  return isDerivedBook(book) ? ({ user_friendly: friendlyForm(raw, book), ...book.rest } as AddressBookEntry) : book;
}

/** The user-friendly form a held entry serves. */
export function friendlyOfBook(book: HeldBook, raw: string): string | null {
  return isDerivedBook(book) ? friendlyForm(raw, book) : book.user_friendly;
}

/** Both absent, or both serving the same user-friendly form for `raw`. */
export function sameFriendly(a: HeldBook | null, b: HeldBook | null, raw: string): boolean {
  return a === b || (a !== null && b !== null && friendlyOfBook(a, raw) === friendlyOfBook(b, raw));
}

/**
 * The address book entry for an address: the upstream's when the snapshot has one, else
 * computed locally the way toncenter does: non-bounceable for wallets and uninit accounts,
 * bounceable otherwise and for accounts the snapshot does not know; no domain.
 */
export function addressBookEntry(
  record: { readonly addressBook: HeldBook | null; readonly state: ServedWalletState | null } | undefined,
  raw: string,
  testnet: boolean,
): AddressBookEntry {
  return addressBookEntryOf(record?.addressBook ?? null, record?.state, raw, testnet);
}

/** addressBookEntry() from a record's two parts; `raw` is the canonical key. */
export function addressBookEntryOf(book: HeldBook | null, state: ServedWalletState | null | undefined, raw: string, testnet: boolean): AddressBookEntry {
  return book === null ? { user_friendly: computedFriendly(state, raw, testnet), domain: null } : entryOfBook(book, raw);
}

/** addressBookEntryOf(…).user_friendly, without making the entry. */
export function userFriendlyOf(book: HeldBook | null, state: ServedWalletState | null | undefined, raw: string, testnet: boolean): string | null {
  return book === null ? computedFriendly(state, raw, testnet) : friendlyOfBook(book, raw);
}

function computedFriendly(state: ServedWalletState | null | undefined, raw: string, testnet: boolean): string {
  const nonBounceable = state !== null && state !== undefined && (state.is_wallet === true || state.status === 'uninit');
  return friendlyForm(raw, { bounceable: !nonBounceable, testnet });
}

function startsWithFriendly(entry: AddressBookEntry): boolean {
  for (const key in entry) return key === 'user_friendly';
  return false;
}

function deepFrozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null) for (const inner of Object.values(value)) deepFrozen(inner);
  return Object.freeze(value);
}
