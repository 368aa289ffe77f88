import { isCanonicalRaw, parseAddress } from '../ton/address.js';
import type { AddressBookEntry, ServedWalletState, WalletRecord } from '../snapshot/types.js';
import type { UpstreamWalletState, WalletStatesResponse } from '../upstream/schemas.js';

/** The canonical key of an address as an upstream printed it; null when unreadable. */
export function rawKeyOf(address: string): string | null {
  if (isCanonicalRaw(address)) return address; // the common case
  const parsed = parseAddress(address);
  return parsed.ok ? parsed.value.raw : null;
}

/**
 * Upstream wallet state → the seed's twelve fields, in the seed's order. One rule for what
 * the upstream left out: null, except extra_currencies, which is `{}`. Pure.
 */
export function servedWalletState(raw: string, state: UpstreamWalletState): ServedWalletState {
  return {
    address: raw,
    balance: state.balance ?? null,
    code_hash: state.code_hash ?? null,
    extra_currencies: state.extra_currencies ?? {},
    is_signature_allowed: state.is_signature_allowed ?? null,
    is_wallet: state.is_wallet ?? null,
    last_transaction_hash: state.last_transaction_hash ?? null,
    last_transaction_lt: state.last_transaction_lt ?? null,
    seqno: state.seqno ?? null,
    status: state.status,
    wallet_id: state.wallet_id ?? null,
    wallet_type: state.wallet_type ?? null,
  };
}

function sameCurrencies(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
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
function sameState(a: ServedWalletState, b: ServedWalletState): boolean {
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

/**
 * Matches one walletStates answer to the addresses asked, by address (real upstreams
 * shuffle the order and leave unknown accounts out). Returns the records found and the
 * raw keys the answer left out. A state equal to the previous one keeps the previous
 * object, so everything derived from it (metric lines, served JSON) is reused. Pure.
 */
export function matchWalletAnswer(
  asked: readonly string[],
  answer: WalletStatesResponse,
  meta: { fetchedAt: number; upstream: string },
  previous?: ReadonlyMap<string, WalletRecord>,
  /** Where found records go; a new map when not given. */
  found: Map<string, WalletRecord> = new Map(),
): { found: Map<string, WalletRecord>; missing: string[] } {
  const byRaw = new Map<string, { state: UpstreamWalletState; key: string }>();
  for (const state of answer.wallets) {
    const raw = rawKeyOf(state.address);
    if (raw !== null) byRaw.set(raw, { state, key: state.address });
  }
  const missing: string[] = [];
  for (const raw of asked) {
    const hit = byRaw.get(raw);
    if (!hit) {
      missing.push(raw);
      continue;
    }
    const book = answer.address_book[hit.key] ?? answer.address_book[raw];
    const state = servedWalletState(raw, hit.state);
    const before = previous?.get(raw);
    found.set(raw, {
      raw,
      state: before?.state && sameState(before.state, state) ? before.state : state,
      // The parsed entry is ours already; copy only when a field needs filling in.
      addressBook: !book ? null : book.user_friendly != null && book.domain !== undefined ? (book as AddressBookEntry) : { ...book, user_friendly: book.user_friendly ?? null, domain: book.domain ?? null },
      metadata: answer.metadata[hit.key] ?? answer.metadata[raw],
      fetchedAt: meta.fetchedAt,
      upstream: meta.upstream,
    });
  }
  return { found, missing };
}
