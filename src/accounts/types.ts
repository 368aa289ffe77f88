import type { AddressBookEntry, ServedWalletState } from '../domain/wallet-state.js';

/** The last thing the upstream said about one address (watched, or asked by a client through read-through). Immutable. */
export interface WalletRecord {
  /** Raw uppercase form; the key. */
  readonly raw: string;
  /** null: the upstream does not know the account (asked twice, left out twice). */
  readonly state: ServedWalletState | null;
  readonly addressBook: AddressBookEntry | null;
  /** The upstream's metadata entry for this address, if it sent one. */
  readonly metadata: unknown;
  /** When this wallet's batch was answered (process clock, ms). */
  readonly fetchedAt: number;
  readonly upstream: string;
}
