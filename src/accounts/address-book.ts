import { friendlyForm } from '../ton/address.js';
import type { AddressBookEntry, ServedWalletState } from '../domain/wallet-state.js';
import type { WalletRecord } from './types.js';

/**
 * The address book entry for an address: the upstream's when the snapshot has one, else
 * computed locally the way toncenter does: non-bounceable for wallets and uninit accounts,
 * bounceable otherwise and for accounts the snapshot does not know; no domain.
 */
export function addressBookEntry(record: WalletRecord | undefined, raw: string, testnet: boolean): AddressBookEntry {
  return addressBookEntryOf(record?.addressBook ?? null, record?.state, raw, testnet);
}

/** addressBookEntry() from a record's two parts; `raw` is the canonical key. */
export function addressBookEntryOf(
  book: AddressBookEntry | null,
  state: ServedWalletState | null | undefined,
  raw: string,
  testnet: boolean,
): AddressBookEntry {
  if (book) return book;
  const nonBounceable = state !== null && state !== undefined && (state.is_wallet === true || state.status === 'uninit');
  return { user_friendly: friendlyForm(raw, { bounceable: !nonBounceable, testnet }), domain: null };
}
