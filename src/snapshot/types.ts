/**
 * What tonwatch last saw upstream. Every object here is immutable and replaced whole:
 * readers (served endpoints, metrics) never see half an update, and may cache anything
 * derived from a snapshot object by its identity.
 */

/** One shard's outbound queue, as the upstream reported it. */
export interface ShardQueue {
  readonly workchain: number;
  /** Signed 64-bit decimal, as upstreams and the seed carry it. */
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

/**
 * One wallet's state in the seed's twelve fields, in the seed's order. A field the upstream
 * left out is null, except extra_currencies, which is `{}`.
 */
export interface ServedWalletState {
  readonly address: string;
  readonly balance: string | null;
  readonly code_hash: string | null;
  readonly extra_currencies: Readonly<Record<string, string>>;
  readonly is_signature_allowed: boolean | null;
  readonly is_wallet: boolean | null;
  readonly last_transaction_hash: string | null;
  readonly last_transaction_lt: string | null;
  readonly seqno: number | null;
  readonly status: string;
  readonly wallet_id: number | null;
  readonly wallet_type: string | null;
}

export interface AddressBookEntry {
  readonly user_friendly: string | null;
  readonly domain: string | null;
  readonly [extra: string]: unknown;
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

export interface Snapshot {
  readonly queueSizes: QueueSizesSnapshot | null;
  readonly wallets: WalletsSnapshot | null;
}

export const EMPTY_SNAPSHOT: Snapshot = Object.freeze({ queueSizes: null, wallets: null });
