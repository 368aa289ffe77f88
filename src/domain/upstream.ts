import type { ChainHeadsAnswer, ConfigParamsAnswer, GetMethodAnswer, ValidatorStatsAnswer } from './chain.js';
import type { JettonWalletsAnswer } from './jettons.js';
import type { QueryName } from './queries.js';
import type { AddressBookEntry, ServedWalletState } from './wallet-state.js';

/**
 * What the pollers ask of an upstream, whatever kind it is: the interface poll/ calls and
 * upstream/ implements. Failures are values with a code from a closed set.
 */

export type UpstreamErrorCode =
  /** No answer within timeoutMs (connect, headers or body). */
  | 'timeout'
  /** Connection refused or reset, DNS failure, TLS error, socket closed mid-body. */
  | 'network'
  /** We aborted the request (shutdown). */
  | 'aborted'
  /** HTTP 429. */
  | 'rate_limited'
  /** HTTP 414 or 431: the request line or headers were too long; make batches smaller. */
  | 'uri_too_long'
  /** HTTP 404 on both path spellings. */
  | 'not_found'
  /** HTTP 401 or 403: key unknown or network not allowed. Failing over may help; retrying the same upstream will not. */
  | 'unauthorized'
  /** Any other 4xx. */
  | 'http_4xx'
  /** 5xx (and toncenter's 542). */
  | 'http_5xx'
  /** A 2xx whose body is not JSON, truncated, or violates the schema (HTML error pages included). */
  | 'bad_body'
  /** A 2xx envelope with ok=false. */
  | 'upstream_error'
  /** A liteserver answered liteServer.error (its code is in details.liteserverCode). */
  | 'liteserver_error'
  /** The upstream's kind has no such call (toncenter: block creation counters). */
  | 'unsupported';

/** One failed upstream request (upstream/errors.ts has the implementation). */
export interface UpstreamFailure {
  readonly code: UpstreamErrorCode;
  readonly message: string;
  readonly details: {
    readonly upstream: string;
    readonly query: string;
    /** HTTP status when there was a response. */
    readonly status?: number | undefined;
    /** Delay the upstream asked for (Retry-After), in milliseconds. */
    readonly retryAfterMs?: number | undefined;
    /** The code of a liteServer.error. */
    readonly liteserverCode?: number | undefined;
  };
}

export type Result<T, E = UpstreamFailure> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** A validated answer and where it came from. */
export interface Fetched<T> {
  readonly value: T;
  /** Name of the upstream that answered. */
  readonly upstream: string;
  /** When the answer arrived, ms since epoch. */
  readonly fetchedAt: number;
}

/** A shard block id as upstreams carry it: shard as a signed 64-bit decimal, hashes base64. */
export interface BlockId {
  readonly workchain: number;
  readonly shard: string;
  readonly seqno: number;
  readonly root_hash: string;
  readonly file_hash: string;
}

/** The queue-size answer, whichever upstream gave it. */
export interface QueueSizesAnswer {
  /** Masterchain first, then basechain shards. */
  readonly shards: readonly { readonly id: BlockId; readonly size: number }[];
  readonly ext_msg_queue_size_limit: number;
  /** The upstream's `@extra`, from wherever it put it; undefined when it sent none. */
  readonly extra: string | undefined;
}

/** A walletStates answer: unknown accounts left out, order unspecified, fields filled in as served. */
export interface WalletStatesAnswer {
  readonly wallets: readonly ServedWalletState[];
  readonly address_book: Readonly<Record<string, AddressBookEntry>>;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** One upstream's view of the chain tip (lagCheck); null where it did not answer. */
export interface UpstreamTip {
  readonly upstream: string;
  /** Its last masterchain block seqno (v2 getMasterchainInfo). */
  readonly seqno: number | null;
  /** Its v3 indexer's last masterchain seqno (/api/v3/masterchainInfo). */
  readonly indexerSeqno: number | null;
}

/** What the lag check found of one upstream. */
export interface UpstreamLag {
  /** Blocks behind the most advanced upstream; undefined when its tip is unknown. */
  readonly lagBlocks: number | undefined;
  /** Its v3 indexer behind its own v2 tip; undefined when either is unknown. */
  readonly indexerLagBlocks: number | undefined;
}

/**
 * Who asks for wallet states: the wallet poll (default), or read-through for a client's
 * unwatched addresses. Both rank below the queue-size poll and take turns in the budget.
 */
export type WalletStatesPurpose = 'poll' | 'read_through';

/** Which page of a jetton wallets answer: `limit` rows from `offset`. */
export interface JettonPage {
  readonly limit: number;
  readonly offset: number;
}

export interface UpstreamClient {
  /** Every upstream's tip, each asked once (no failover, no retry), inside its budget. */
  fetchTips(signal?: AbortSignal): Promise<readonly UpstreamTip[]>;
  /** The queue sizes, with retries and failover. */
  fetchQueueSizes(signal?: AbortSignal): Promise<Result<Fetched<QueueSizesAnswer>>>;
  /**
   * One walletStates request for these canonical raw keys (answers are matched by address,
   * whatever form went out); a 414/431 comes back at once as `uri_too_long` (no retry, no failover).
   */
  fetchWalletStates(addresses: readonly string[], signal?: AbortSignal, purpose?: WalletStatesPurpose): Promise<Result<Fetched<WalletStatesAnswer>>>;
  /**
   * One page of the jetton wallets of these owners (canonical raw keys) for one master, with
   * retries and failover; a 414/431 comes back at once as `uri_too_long`. Ranks below the
   * wallet poll and above read-through in the budget.
   */
  fetchJettonWallets(
    owners: readonly string[],
    master: string,
    page: JettonPage,
    signal?: AbortSignal,
    /** Jetton wallets already known, owner → wallet (the snapshot's): a liteserver does not ask the master for them again. */
    known?: ReadonlyMap<string, string>,
  ): Promise<Result<Fetched<JettonWalletsAnswer>>>;
  /** A jetton master's metadata (TEP-64 content: `decimals`, `uri`, …), with retries and failover. */
  fetchJettonMetadata(master: string, signal?: AbortSignal): Promise<Result<Fetched<Readonly<Record<string, unknown>>>>>;
  /** Every chain's newest block with its gen_utime, with retries and failover; below the queue-size poll, above the wallet cycle. */
  fetchChainHeads(signal?: AbortSignal): Promise<Result<Fetched<ChainHeadsAnswer>>>;
  /** These config parameters' value cells, with retries and failover. */
  fetchConfigParams(params: readonly number[], signal?: AbortSignal): Promise<Result<Fetched<ConfigParamsAnswer>>>;
  /** A get-method with no arguments on a masterchain account (`-1:…`), with retries and failover. */
  runGetMethod(address: string, method: string, signal?: AbortSignal): Promise<Result<Fetched<GetMethodAnswer>>>;
  /** Blocks created per validator (liteServer.getValidatorStats): a toncenter upstream has no such call and fails with `unsupported`. */
  fetchValidatorStats(signal?: AbortSignal): Promise<Result<Fetched<ValidatorStatsAnswer>>>;
  /** Closes the connections it keeps (liteservers); a request after this opens them again. */
  close(): void;
}

/** The `query` label of upstream requests: the two polls, and the lag check's tip requests. */
export type UpstreamQuery = QueryName | 'lag_check';

/** Receives one call per upstream request, success or not (for tonwatch_upstream_* metrics). */
export interface UpstreamObserver {
  request(upstream: string, query: UpstreamQuery, code: string, durationSeconds: number): void;
  /** An upstream passed over for `query` without a request, because it lags. */
  skipped(upstream: string, query: QueryName, reason: 'lagging' | 'indexer_lagging'): void;
}
