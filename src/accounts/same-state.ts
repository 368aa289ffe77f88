import { isPackedState, KIND_FIELDS, packedBytesRead, samePacked, type StateKind } from './packed-state.js';
import { WALLET_STATE_FIELDS, type AddressBookEntry, type ServedWalletState } from '../domain/wallet-state.js';

/**
 * Equality of served wallet states and address book entries. One equal to the previous
 * keeps the previous object (poll/wallet-mapping.ts), and everything derived from it is
 * reused by identity.
 */

/** Same own keys, and `equal` values under each; without allocating an array of keys. */
function sameEntries(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>, equal: (x: unknown, y: unknown) => boolean): boolean {
  if (a === b) return true;
  let count = 0;
  for (const key in a) {
    if (!equal(a[key], b[key])) return false;
    count += 1;
  }
  for (const key in b) if (Object.hasOwn(b, key)) count -= 1;
  return count === 0;
}

const identical = (x: unknown, y: unknown): boolean => x === y;
/** Equal, or arrays of equal items (an address book entry's `interfaces`). */
export const equalOrSameItems = (x: unknown, y: unknown): boolean =>
  x === y || (Array.isArray(x) && Array.isArray(y) && x.length === y.length && x.every((item, i) => item === y[i]));

export function sameCurrencies(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  return sameEntries(a, b, identical);
}

/** Whether two address book entries say the same (extra keys such as `interfaces` included). */
export function sameAddressBookEntry(a: AddressBookEntry, b: AddressBookEntry): boolean {
  return sameEntries(a, b, equalOrSameItems);
}

/**
 * Field by field over WALLET_STATE_FIELDS, without allocating: this runs once per wallet per
 * poll. A packed state held against one as parsed (the poll's case) has its bytes compared
 * with the other's texts (packed-state.ts packedBytesRead), not read back as text.
 */
export function sameState(a: ServedWalletState, b: ServedWalletState): boolean {
  const packed = samePacked(a, b);
  if (packed !== undefined) return packed;
  const held = isPackedState(b) ? b : a;
  const other = held === a ? b : a;
  const bytes = packedBytesRead(held, other.balance, other.last_transaction_lt, other.last_transaction_hash);
  if (bytes === false) return false;
  for (let i = 0; i < WALLET_STATE_FIELDS.length; i += 1) {
    const { name, kind } = WALLET_STATE_FIELDS[i] as (typeof WALLET_STATE_FIELDS)[number];
    if (bytes && (name === 'balance' || name === 'last_transaction_lt' || name === 'last_transaction_hash')) continue;
    if (kind === 'currencies' ? !sameCurrencies(a[name], b[name]) : a[name] !== b[name]) return false;
  }
  return true;
}

/** Whether `state`'s fields that a kind holds (packed-state.ts) are those of `kind`. */
export function isOfKind(state: ServedWalletState, kind: StateKind): boolean {
  for (let i = 0; i < KIND_FIELDS.length; i += 1) {
    const name = KIND_FIELDS[i] as keyof StateKind;
    if (name === 'extra_currencies' ? !sameCurrencies(state.extra_currencies, kind.extra_currencies) : state[name] !== kind[name]) return false;
  }
  return true;
}
