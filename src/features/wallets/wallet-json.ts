import type { ServedWalletState } from '../../domain/wallet-state.js';

/**
 * One element of a walletStates answer as toncenter's indexer writes it (ton-index-go,
 * `WalletState`): the fields its Go struct marks `omitempty` are left out when unknown,
 * never `null`, because clients typed against the indexer (zod `.optional()`, OpenAPI
 * generators) reject a `null` there. `last_transaction_hash` and `last_transaction_lt`
 * have no `omitempty`: they are `null` when unknown. `address` and `is_wallet` are always
 * there. Keys in the indexer's order. The snapshot keeps nulls; only the served form omits.
 */
export function indexerWalletJson(state: ServedWalletState): string {
  const out: Record<string, unknown> = { address: state.address, is_wallet: state.is_wallet ?? false };
  if (state.wallet_type !== null) out['wallet_type'] = state.wallet_type;
  if (state.seqno !== null) out['seqno'] = state.seqno;
  if (state.wallet_id !== null) out['wallet_id'] = state.wallet_id;
  if (state.balance !== null) out['balance'] = state.balance;
  if (hasEntries(state.extra_currencies)) out['extra_currencies'] = state.extra_currencies;
  if (state.is_signature_allowed !== null) out['is_signature_allowed'] = state.is_signature_allowed;
  out['status'] = state.status;
  if (state.code_hash !== null) out['code_hash'] = state.code_hash;
  out['last_transaction_hash'] = state.last_transaction_hash;
  out['last_transaction_lt'] = state.last_transaction_lt;
  return JSON.stringify(out);
}

function hasEntries(record: Readonly<Record<string, string>>): boolean {
  for (const key in record) if (Object.hasOwn(record, key)) return true;
  return false;
}
