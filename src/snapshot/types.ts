import type { AddressBookEntry, ServedWalletState } from '../domain/wallet-state.js';

/**
 * What tonwatch last saw upstream. Every object here is immutable and replaced whole:
 * readers (served endpoints, metrics) never see half an update, and may cache anything
 * derived from a snapshot object by its identity.
 */

/** One shard's outbound queue, as the upstream reported it. */
export interface ShardQueue {
  readonly workchain: number;
  /** Signed 64-bit decimal, as toncenter's API carries it. */
  readonly shard: string;
  readonly seqno: number;
  /** Standard base64, 44 characters. */
  readonly rootHash: string;
  readonly fileHash: string;
  /** Messages in the shard's outbound queue. */
  readonly size: number;
}

export interface QueueSizesSnapshot {
  /** When the upstream's answer arrived, ms since epoch. */
  readonly fetchedAt: number;
  /** Name of the upstream that answered. */
  readonly upstream: string;
  readonly extMsgQueueSizeLimit: number;
  /** Masterchain first, then basechain shards, in upstream order. */
  readonly shards: readonly ShardQueue[];
}

/** The last thing the upstream said about one watched address. */
export interface WalletRecord {
  /** Raw uppercase form; the key. */
  readonly raw: string;
  /** null: the upstream does not know the account (asked twice, left out twice). */
  readonly state: ServedWalletState | null;
  readonly addressBook: AddressBookEntry | null;
  /** The upstream's metadata entry for this address, if it sent one. */
  readonly metadata: unknown;
  /** When this wallet's batch was answered, ms since epoch. */
  readonly fetchedAt: number;
  readonly upstream: string;
}

export interface WalletsSnapshot {
  /** Keyed by raw uppercase address, watchlist order. */
  readonly wallets: ReadonlyMap<string, WalletRecord>;
  /** When the newest batch in this snapshot was answered, ms since epoch. */
  readonly fetchedAt: number;
}

/** What a walletStates answer reads of the wallets. */
export interface WalletsLookup {
  readonly wallets: { get(raw: string): WalletRecord | undefined };
  readonly fetchedAt: number;
}

export interface Snapshot {
  readonly queueSizes: QueueSizesSnapshot | null;
  readonly wallets: WalletsSnapshot | null;
}

export const EMPTY_SNAPSHOT: Snapshot = Object.freeze({ queueSizes: null, wallets: null });
