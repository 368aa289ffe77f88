import { addressBookEntry } from '../snapshot/address-book.js';
import { isFresh, staleFrom } from '../snapshot/freshness.js';
import type { WalletRecord, WalletsSnapshot } from '../snapshot/types.js';
import { createSnapshotResponder, jsonResponse, retryAfterSeconds, type ServedResponse } from './response.js';
import { parseWalletQuery } from './wallet-query.js';

/**
 * `GET /api/v3/walletStates?address=…` from the snapshot, in toncenter's v3 format:
 * `wallets` (watched, known, fresh; request order; duplicates once), `address_book` (every
 * valid requested address), `metadata` (the upstream's, for those addresses). Errors in
 * toncenter v3's form `{"error": …}`.
 *
 * Bodies are assembled from per-wallet JSON serialised once per record, and a bounded
 * cache keeps whole answers to repeated queries until the snapshot, the watchlist or a
 * served record's freshness changes.
 */

export interface WalletStatesRequest {
  readonly method: string;
  readonly query: string;
  readonly now: number;
  readonly maxAgeSeconds: number;
  readonly nextPollDueAt: number | null;
  readonly testnet: boolean;
  /** Raw keys of the watchlist; a new set per config. */
  readonly watched: ReadonlySet<string>;
  /** The persisted wallets file is still being read. */
  readonly loading?: boolean;
}

export interface WalletStatesHandler {
  serve(snapshot: WalletsSnapshot | null, request: WalletStatesRequest): ServedResponse;
}

/** Bounds of the answer cache. */
const CACHE_ENTRIES = 512;
const CACHE_BYTES = 64 * 1024 * 1024;

interface Fragments {
  readonly testnet: boolean;
  readonly state: string | null;
  readonly book: string;
  readonly metadata: string | null;
}

export function createWalletStatesHandler(): WalletStatesHandler {
  const fragments = new WeakMap<WalletRecord, Fragments>();
  let cacheKey: { snapshot: WalletsSnapshot | null; watched: ReadonlySet<string>; testnet: boolean; maxAge: number } | null = null;
  const respond = createSnapshotResponder();
  const answers = new Map<string, { body: Buffer; validUntil: number }>();
  let cachedBytes = 0;

  const fragmentsOf = (record: WalletRecord, key: string, testnet: boolean, make: () => ReturnType<typeof addressBookEntry>): Fragments => {
    let found = fragments.get(record);
    if (found?.testnet !== testnet) {
      found = {
        testnet,
        state: record.state ? JSON.stringify(record.state) : null,
        book: `${key}:${JSON.stringify(make())}`,
        metadata: record.metadata === undefined ? null : `${key}:${JSON.stringify(record.metadata)}`,
      };
      fragments.set(record, found);
    }
    return found;
  };

  const build = (snapshot: WalletsSnapshot | null, request: WalletStatesRequest, query: string): { body: Buffer; validUntil: number } | ServedResponse => {
    const parsed = parseWalletQuery(query);
    if (!parsed.ok) return jsonResponse(422, { error: parsed.error });
    let validUntil = snapshot ? staleFrom(snapshot.fetchedAt, request.maxAgeSeconds) : Infinity;
    const wallets: string[] = [];
    const book: string[] = [];
    const metadata: string[] = [];
    for (const requested of parsed.addresses) {
      const record = request.watched.has(requested.raw) ? snapshot?.wallets.get(requested.raw) : undefined;
      const key = `"${requested.raw}"`;
      if (record && isFresh(record.fetchedAt, request.now, request.maxAgeSeconds)) {
        validUntil = Math.min(validUntil, staleFrom(record.fetchedAt, request.maxAgeSeconds));
        const parts = fragmentsOf(record, key, request.testnet, () => addressBookEntry(record, requested.raw, request.testnet));
        if (parts.state !== null) wallets.push(parts.state);
        book.push(parts.book);
        if (parts.metadata !== null) metadata.push(parts.metadata);
      } else {
        book.push(`${key}:${JSON.stringify(addressBookEntry(undefined, requested.raw, request.testnet))}`);
      }
    }
    return { body: Buffer.from(`{"wallets":[${wallets.join(',')}],"address_book":{${book.join(',')}},"metadata":{${metadata.join(',')}}}`), validUntil };
  };

  return {
    serve(snapshot, request) {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return jsonResponse(405, { error: `method ${request.method} not allowed; use GET` }, { allow: 'GET, HEAD' });
      }
      const stale = request.watched.size > 0 && (snapshot === null || !isFresh(snapshot.fetchedAt, request.now, request.maxAgeSeconds));
      if (stale) {
        // Request errors first: a bad request is the client's to fix, whatever our state.
        const parsed = parseWalletQuery(request.query);
        if (!parsed.ok) return jsonResponse(422, { error: parsed.error });
        const error = request.loading
          ? 'the wallet snapshot is still loading from disk'
          : snapshot === null
            ? 'no wallet snapshot yet: the first wallet poll has not finished'
            : `wallet snapshot is older than snapshot.maxAgeSeconds (${request.maxAgeSeconds} s): the upstream is failing`;
        return jsonResponse(503, { error }, { 'retry-after': request.loading ? '1' : retryAfterSeconds(request.now, request.nextPollDueAt) });
      }
      if (
        !cacheKey ||
        cacheKey.snapshot !== snapshot ||
        cacheKey.watched !== request.watched ||
        cacheKey.testnet !== request.testnet ||
        cacheKey.maxAge !== request.maxAgeSeconds
      ) {
        cacheKey = {
          snapshot,
          watched: request.watched,
          testnet: request.testnet,
          maxAge: request.maxAgeSeconds,
        };
        answers.clear();
        cachedBytes = 0;
      }
      let answer = answers.get(request.query);
      if (!answer || request.now >= answer.validUntil) {
        const built = build(snapshot, request, request.query);
        if ('status' in built) return built;
        answer = built;
        if (answer.body.length <= CACHE_BYTES / 8) {
          answers.set(request.query, answer);
          cachedBytes += answer.body.length;
          for (const [oldest, entry] of answers) {
            if (answers.size <= CACHE_ENTRIES && cachedBytes <= CACHE_BYTES) break;
            answers.delete(oldest);
            cachedBytes -= entry.body.length;
          }
        }
      }
      const fetchedAt = snapshot?.fetchedAt ?? request.now;
      return respond(answer.body, fetchedAt, request.now, request.nextPollDueAt);
    },
  };
}
