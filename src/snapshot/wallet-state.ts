import type { ServedWalletState } from './types.js';

/**
 * Equality of served wallet states. A state equal to the previous one keeps the previous
 * object (poll/wallet-mapping.ts), and everything derived from it is reused by identity.
 */

export function sameCurrencies(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  if (a === b) return true;
  let count = 0;
  for (const key in a) {
    if (a[key] !== b[key]) return false;
    count += 1;
  }
  // Counting b's keys without allocating an array of them.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  for (const _ in b) count -= 1;
  return count === 0;
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
