import type { AddressBookEntry, ServedWalletState } from './types.js';

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
const equalOrSameItems = (x: unknown, y: unknown): boolean =>
  x === y || (Array.isArray(x) && Array.isArray(y) && x.length === y.length && x.every((item, i) => item === y[i]));

export function sameCurrencies(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  return sameEntries(a, b, identical);
}

/** Whether two address book entries say the same (extra keys such as `interfaces` included). */
export function sameAddressBookEntry(a: AddressBookEntry, b: AddressBookEntry): boolean {
  return sameEntries(a, b, equalOrSameItems);
}

/** Field by field, without allocating: this runs once per wallet per poll. */
export function sameState(a: ServedWalletState, b: ServedWalletState): boolean {
  return (
    a.balance === b.balance &&
    a.last_transaction_lt === b.last_transaction_lt &&
    a.last_transaction_hash === b.last_transaction_hash &&
    a.status === b.status &&
    a.seqno === b.seqno &&
    a.code_hash === b.code_hash &&
    a.is_wallet === b.is_wallet &&
    a.is_signature_allowed === b.is_signature_allowed &&
    a.wallet_id === b.wallet_id &&
    a.wallet_type === b.wallet_type &&
    a.address === b.address &&
    sameCurrencies(a.extra_currencies, b.extra_currencies)
  );
}
