import type { AddressBookEntry } from '../domain/wallet-state.js';
import type { UpstreamLag } from '../domain/upstream.js';
import type { WatchedWallet } from '../domain/config.js';
import type { WalletRecord } from '../accounts/types.js';
import type { ServedRequest } from '../serve/route.js';
import type { ServedResponse } from '../serve/response.js';

/**
 * What features offer each other, without importing each other: a feature declares what it
 * provides (FeatureParts.provides), and any feature reads what all of them provide
 * (FeatureContext.provided), each kind of provision a list in the features' order.
 */
export interface Provisions {
  /** Sections of the status page. */
  readonly statusSections: readonly StatusSection[];
  /** Columns of the watched wallets' table (balances of other assets than TON). */
  readonly walletColumns: WalletColumns;
  /** Wallet states of addresses that are not on the watchlist, fetched for a client. */
  readonly unwatched: UnwatchedLookup;
  /** The address book entry the last wallet poll has for a watched wallet. */
  readonly addressBook: (raw: string) => AddressBookEntry;
  /** Which upstreams are behind the chain, and by how much: the client passes them over. */
  readonly upstreamLag: UpstreamLagView;
  /** toncenter v2 methods, answered as GET /api/v2/<method> and through JSON-RPC. */
  readonly v2Methods: Readonly<Record<string, (request: ServedRequest) => ServedResponse>>;
}

/** What the features provide, by kind: a list each (empty when none provides it). */
export interface Provided {
  all<K extends keyof Provisions>(kind: K): readonly Provisions[K][];
}

/**
 * A section of the status page. Rendered on the server, for the first paint (readable
 * without JavaScript) and for the page's refreshes (/api/status/sections); its model is
 * its part of /api/status.
 */
export interface StatusSection {
  /** Its id: the page's `section-<id>` element. */
  readonly id: string;
  /** Its heading. */
  readonly title: string;
  /** Its place on the page, lower first. */
  readonly order: number;
  /** The `id` of its <section>, for links to it (`#wallets`). */
  readonly anchor?: string;
  /** Its keys of /api/status: the same object while nothing it shows changed. */
  model(now: number): Readonly<Record<string, unknown>>;
  /** Its content, from its model, for the page's query parameters (search, page, sort), at `now`. */
  html(model: Readonly<Record<string, unknown>>, params: URLSearchParams, now: number): string;
  /** Markup between its heading and its content (a search form), for the page's query parameters. */
  controls?(params: URLSearchParams): string;
  /** Its sentences of the page's summary line, each with its place in it (lower first). */
  summary?(model: Readonly<Record<string, unknown>>): readonly (readonly [place: number, html: string])[];
}

/** Columns the watched wallets' table shows beside TON (a jetton each). */
export interface WalletColumns {
  /** The columns' names, in order. */
  names(): readonly string[];
  /** A wallet's cells, one per name: its balance (null when not watched for it or not fresh), threshold, and whether it is under it. */
  cells(wallet: WatchedWallet, now: number): readonly WalletCell[];
  /** What the cells depend on, beside the wallets' own snapshot, compared part by part (by identity): rows are worked out again when a part changes. */
  version(): readonly unknown[];
  /** The first time a cell now fresh turns stale, so rows are worked out again then (process clock); Infinity when never. */
  validUntil(now: number): number;
}

export interface WalletCell {
  readonly balance: string | null;
  readonly min: number | null;
  readonly below: boolean;
}

/** Read-through as the walletStates route asks it. */
export interface UnwatchedLookup {
  /** Whether it is on in the config in force; its records' time to live, seconds. */
  settings(): { readonly enabled: boolean; readonly ttlSeconds: number };
  lookup(raws: readonly string[], client?: string): UnwatchedAnswer | Promise<UnwatchedAnswer>;
  /** Whether `client` may have any address fetched now: one it does not admit is refused at its first unwatched address. */
  admits?(client: string): boolean;
  /** The refusal such a request gets, `addresses` counted as refused. */
  refusal?(addresses: number): UnwatchedAnswer;
}

/** The records of the unwatched addresses of one request, or why not, with how long the client should wait before asking again. */
export type UnwatchedAnswer =
  | { readonly ok: true; readonly records: ReadonlyMap<string, WalletRecord> }
  | { readonly ok: false; readonly status: 503 | 504; readonly error: string; readonly retryAfterSeconds: number };

/** Which upstreams the client passes over for a query, and how far behind each is. */
export interface UpstreamLagView {
  /** Why `upstream` is passed over for `query` (null: it is not). */
  lagging(upstream: string, query: string): 'lagging' | 'indexer_lagging' | null;
  /** How far behind it is for `query`, blocks; 0 when not known. */
  lagBlocks(upstream: string, query: string): number;
  /** The last check's findings, by upstream (empty before the first, or with the check off). */
  current(): ReadonlyMap<string, UpstreamLag>;
}
