import type { ServedWalletState } from '../domain/wallet-state.js';
import type { HeldBook } from './address-book.js';

/**
 * The last thing the upstream said about one address (watched, or asked by a client through
 * read-through). Immutable but for its fetch time, which moves forward in place when the
 * same record is fetched again: by this process's poll (accounts/wallet-mapping.ts), or by
 * another replica whose marker says so (features/wallets/held.ts). The record stays the
 * same object, and so do the caches made from it.
 */
export interface WalletRecord {
  /** Raw uppercase form; the key. */
  readonly raw: string;
  /** null: the upstream does not know the account (asked twice, left out twice). */
  readonly state: ServedWalletState | null;
  /** The upstream's address book entry, held derived when it can be (address-book.ts); null: none sent. */
  readonly addressBook: HeldBook | null;
  /** The upstream's metadata entry for this address, if it sent one. */
  readonly metadata: unknown;
  /** When this wallet's batch was answered (process clock, ms). */
  fetchedAt: number;
  readonly upstream: string;
}
