import { addressBookEntry } from '../snapshot/address-book.js';
import { isFresh } from '../snapshot/store.js';
import type { WalletRecord, WalletsSnapshot } from '../snapshot/types.js';
import { jsonResponse, retryAfterSeconds, snapshotHeaders, type ServedResponse } from './response.js';
import { parseWalletQuery } from './wallet-query.js';

/**
 * `GET /api/v3/walletStates?address=…` from the snapshot, in the seed's format:
 * `wallets` (watched, known, fresh; request order; duplicates once), `address_book` (every
 * valid requested address), `metadata` (the upstream's, for those addresses). Errors in
 * toncenter v3's form `{"error": …}`. The body is assembled from per-wallet JSON
 * serialised once per record, not built per request.
 */

export interface WalletStatesRequest {
  readonly method: string;
  readonly query: string;
  readonly now: number;
  readonly maxAgeSeconds: number;
  readonly nextPollDueAt: number | null;
  readonly testnet: boolean;
  /** Raw keys of the watchlist. */
  readonly watched: ReadonlySet<string>;
}

const stateJson = new WeakMap<WalletRecord, string>();
const bookJson = new WeakMap<WalletRecord, { testnet: boolean; json: string }>();
const metadataJson = new WeakMap<WalletRecord, string>();

function cached(map: WeakMap<WalletRecord, string>, record: WalletRecord, make: () => string): string {
  let json = map.get(record);
  if (json === undefined) {
    json = make();
    map.set(record, json);
  }
  return json;
}

export function serveWalletStates(snapshot: WalletsSnapshot | null, request: WalletStatesRequest): ServedResponse {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return jsonResponse(405, { error: `method ${request.method} not allowed; use GET` }, { allow: 'GET, HEAD' });
  }
  const query = parseWalletQuery(request.query);
  if (!query.ok) return jsonResponse(422, { error: query.error });
  const retryAfter = { 'retry-after': retryAfterSeconds(request.now, request.nextPollDueAt) };
  if (request.watched.size > 0) {
    if (snapshot === null) return jsonResponse(503, { error: 'no wallet snapshot yet: the first wallet poll has not finished' }, retryAfter);
    if (!isFresh(snapshot.fetchedAt, request.now, request.maxAgeSeconds)) {
      return jsonResponse(503, { error: `wallet snapshot is older than snapshot.maxAgeSeconds (${request.maxAgeSeconds} s): the upstream is failing` }, retryAfter);
    }
  }
  const wallets: string[] = [];
  const book: string[] = [];
  const metadata: string[] = [];
  for (const requested of query.addresses) {
    const record = request.watched.has(requested.raw) ? snapshot?.wallets.get(requested.raw) : undefined;
    const fresh = record !== undefined && isFresh(record.fetchedAt, request.now, request.maxAgeSeconds);
    const usable = fresh ? record : undefined;
    if (usable?.state) wallets.push(cached(stateJson, usable, () => JSON.stringify(usable.state)));
    const key = JSON.stringify(requested.raw);
    if (usable) {
      let entry = bookJson.get(usable);
      if (entry?.testnet !== request.testnet) {
        entry = { testnet: request.testnet, json: JSON.stringify(addressBookEntry(usable, requested.address(), request.testnet)) };
        bookJson.set(usable, entry);
      }
      book.push(`${key}:${entry.json}`);
      if (usable.metadata !== undefined) metadata.push(`${key}:${cached(metadataJson, usable, () => JSON.stringify(usable.metadata))}`);
    } else {
      book.push(`${key}:${JSON.stringify(addressBookEntry(undefined, requested.address(), request.testnet))}`);
    }
  }
  const body = `{"wallets":[${wallets.join(',')}],"address_book":{${book.join(',')}},"metadata":{${metadata.join(',')}}}`;
  const fetchedAt = snapshot?.fetchedAt ?? request.now;
  return { status: 200, headers: snapshotHeaders(fetchedAt, request.now, request.nextPollDueAt), body };
}
