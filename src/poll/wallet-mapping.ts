import { parseAddress } from '../ton/address.js';
import type { ServedWalletState, WalletRecord } from '../snapshot/types.js';
import type { UpstreamWalletState, WalletStatesResponse } from '../upstream/schemas.js';

const RAW_UPPER = /^-?\d{1,3}:[0-9A-F]{64}$/;

/** The canonical key of an address as an upstream printed it; null when unreadable. */
export function rawKeyOf(address: string): string | null {
  if (RAW_UPPER.test(address)) return address; // the common case: skip @ton/core
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

/**
 * Matches one walletStates answer to the addresses asked, by address (real upstreams
 * shuffle the order and leave unknown accounts out). Returns the records found and the
 * raw keys the answer left out. Pure.
 */
export function matchWalletAnswer(
  asked: readonly string[],
  answer: WalletStatesResponse,
  meta: { fetchedAt: number; upstream: string },
): { found: Map<string, WalletRecord>; missing: string[] } {
  const byRaw = new Map<string, { state: UpstreamWalletState; key: string }>();
  for (const state of answer.wallets) {
    const raw = rawKeyOf(state.address);
    if (raw !== null) byRaw.set(raw, { state, key: state.address });
  }
  const found = new Map<string, WalletRecord>();
  const missing: string[] = [];
  for (const raw of asked) {
    const hit = byRaw.get(raw);
    if (!hit) {
      missing.push(raw);
      continue;
    }
    const book = answer.address_book[hit.key] ?? answer.address_book[raw];
    found.set(raw, {
      raw,
      state: servedWalletState(raw, hit.state),
      addressBook: book ? ({ ...book, user_friendly: book.user_friendly ?? null, domain: book.domain ?? null }) : null,
      metadata: answer.metadata[hit.key] ?? answer.metadata[raw],
      fetchedAt: meta.fetchedAt,
      upstream: meta.upstream,
    });
  }
  return { found, missing };
}
