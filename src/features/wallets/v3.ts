import type { UnwatchedAnswer, UnwatchedLookup } from '../provisions.js';
import type { WatchedKeys } from '../../domain/config.js';
import { addressBookEntry } from '../../accounts/address-book.js';
import { isFresh, staleFrom } from '../../snapshot/freshness.js';
import type { WalletRecord } from '../../accounts/types.js';
import type { WalletsLookup } from './types.js';
import { createSnapshotResponder, jsonResponse, unavailableResponse, type ServedResponse, type SnapshotQueryRequest } from '../../serve/response.js';
import { indexerWalletJson } from './wallet-json.js';
import { ownString } from '../../domain/own-string.js';
import { parseWalletQuery, type RequestedAddress } from './wallet-query.js';

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

export interface WalletStatesRequest extends SnapshotQueryRequest {
  /** Raw keys of the watchlist; new ones per config. */
  readonly watched: WatchedKeys;
  /** The persisted wallets file is still being read. */
  readonly loading?: boolean;
  /** With readThrough.enabled: where addresses that are not watched are looked up. */
  readonly readThrough?: ReadThroughLookup | null;
  /** readThrough.ttlSeconds: how long a read-through record is served. */
  readonly readThroughTtlSeconds?: number;
  /** The client's address: read-through shares its budget between clients. */
  readonly client?: string;
}

/** Read-through as the handler needs it (the read-through feature provides it). */
export type ReadThroughLookup = Omit<UnwatchedLookup, 'settings'>;
export type ReadThroughLookupAnswer = UnwatchedAnswer;

export interface WalletStatesHandler {
  serve(snapshot: WalletsLookup | null, request: WalletStatesRequest): ServedResponse | Promise<ServedResponse>;
}

/** Bounds of the answer cache. */
const CACHE_ENTRIES = 512;
const CACHE_BYTES = 64 * 1024 * 1024;

interface Fragments {
  readonly state: string | null;
  readonly book: string;
  readonly metadata: string | null;
}

interface PerNetwork {
  mainnet: Fragments | null;
  testnet: Fragments | null;
}

/**
 * Records whose JSON pieces are kept, in two generations of this many: when the newer one
 * fills, the older is dropped. A record lives as long as its wallet's state is the same (a
 * cluster replica keeps it for hours), so pieces kept for as long as the record would grow
 * with every address a client ever asked for, up to the whole watchlist (about 530 bytes
 * each); these keep the last tens of thousands asked, many 1024-address answers' worth.
 */
const FRAGMENT_RECORDS = 32 * 1024;

function createFragmentCache(perGeneration: number): (record: WalletRecord) => PerNetwork {
  let newer = new Map<WalletRecord, PerNetwork>();
  let older = new Map<WalletRecord, PerNetwork>();
  return (record) => {
    const kept = newer.get(record);
    if (kept !== undefined) return kept;
    const made = older.get(record) ?? { mainnet: null, testnet: null };
    if (newer.size >= perGeneration) {
      older = newer;
      newer = new Map();
    }
    newer.set(record, made);
    return made;
  };
}

export function createWalletStatesHandler(wallOffset: () => number = () => 0, fragmentRecords = FRAGMENT_RECORDS): WalletStatesHandler {
  /** Each record's JSON pieces, made once per record and testnet flag. */
  const fragments = createFragmentCache(fragmentRecords);
  const respond = createSnapshotResponder(wallOffset);
  const answers = createAnswerCache();

  const fragmentsOf = (record: WalletRecord, testnet: boolean): Fragments => {
    const kept = fragments(record);
    return (kept[testnet ? 'testnet' : 'mainnet'] ??= fragmentsMadeOf(record, testnet));
  };

  const build = (
    snapshot: WalletsLookup | null,
    request: WalletStatesRequest,
    addresses: readonly RequestedAddress[],
    readThrough: ReadonlyMap<string, WalletRecord> | null,
  ): { body: Buffer; validUntil: number } => buildAnswer(fragmentsOf, snapshot, request, addresses, readThrough);

  /** The answer with read-through: the unwatched addresses looked up, the rest from the snapshot. Not cached: the records are. */
  const withReadThrough = (
    snapshot: WalletsLookup | null,
    request: WalletStatesRequest,
    addresses: readonly RequestedAddress[],
    readThrough: ReadThroughLookup,
  ): ServedResponse | Promise<ServedResponse> => {
    const looked = readThrough.lookup(
      addresses.filter((a) => !request.watched.has(a.raw)).map((a) => a.raw),
      request.client,
    );
    const finish = (answer: ReadThroughLookupAnswer): ServedResponse => {
      if (!answer.ok) return jsonResponse(answer.status, { error: answer.error }, { 'retry-after': String(answer.retryAfterSeconds) });
      const built = build(snapshot, request, addresses, answer.records);
      const dueAt = request.nextPollDueAt === null ? built.validUntil : Math.min(request.nextPollDueAt, built.validUntil);
      return respond(built.body, snapshot?.fetchedAt ?? request.now, request.now, Number.isFinite(dueAt) ? dueAt : null);
    };
    return looked instanceof Promise ? looked.then(finish) : finish(looked);
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
        return unavailableResponse('wallet', snapshot === null, request.loading === true, request);
      }
      answers.keyedBy(snapshot, request);
      const readThrough = request.readThrough ?? null;
      let answer = answers.get(request.query);
      if (!answer || request.now >= answer.validUntil) {
        // A client read-through would refuse anyway is refused at its first unwatched address, the rest unparsed.
        const refused = readThrough !== null && readThrough.admits?.(request.client ?? '') === false;
        const parsed = parseWalletQuery(request.query, refused ? (raw) => !request.watched.has(raw) : undefined);
        if (parsed.ok === 'stopped') return refusalResponse(readThrough, parsed.values);
        if (!parsed.ok) return jsonResponse(422, { error: parsed.error });
        if (readThrough !== null && parsed.addresses.some((a) => !request.watched.has(a.raw))) {
          return withReadThrough(snapshot, request, parsed.addresses, readThrough);
        }
        answer = build(snapshot, request, parsed.addresses, null);
        answers.set(request.query, answer);
      }
      const fetchedAt = snapshot?.fetchedAt ?? request.now;
      return respond(answer.body, fetchedAt, request.now, request.nextPollDueAt);
    },
  };
}

/**
 * The answer for `addresses`: watched ones from the snapshot (fresh ones only), others from
 * `readThrough` records when given (else the address book only), and when it turns stale.
 */
function buildAnswer(
  fragmentsOf: (record: WalletRecord, testnet: boolean) => Fragments,
  snapshot: WalletsLookup | null,
  request: WalletStatesRequest,
  addresses: readonly RequestedAddress[],
  readThrough: ReadonlyMap<string, WalletRecord> | null,
): { body: Buffer; validUntil: number } {
  let validUntil = snapshot ? staleFrom(snapshot.fetchedAt, request.maxAgeSeconds) : Infinity;
  const wallets: string[] = [];
  const book: string[] = [];
  const metadata: string[] = [];
  const readThroughMs = (request.readThroughTtlSeconds ?? 0) * 1000;
  for (const requested of addresses) {
    const watched = request.watched.has(requested.raw);
    const record = watched ? snapshot?.wallets.get(requested.raw) : readThrough?.get(requested.raw);
    const shown = record !== undefined && (!watched || isFresh(record.fetchedAt, request.now, request.maxAgeSeconds));
    if (!shown) {
      book.push(`"${requested.raw}":${JSON.stringify(addressBookEntry(undefined, requested.raw, request.testnet))}`);
      continue;
    }
    validUntil = Math.min(validUntil, watched ? staleFrom(record.fetchedAt, request.maxAgeSeconds) : record.fetchedAt + readThroughMs);
    const parts = fragmentsOf(record, request.testnet);
    if (parts.state !== null) wallets.push(parts.state);
    book.push(parts.book);
    if (parts.metadata !== null) metadata.push(parts.metadata);
  }
  return {
    body: Buffer.from(`{"wallets":[${wallets.join(',')}],"address_book":{${book.join(',')}},"metadata":{${metadata.join(',')}}}`),
    validUntil,
  };
}

/**
 * A record's JSON pieces, made from the record alone, its own address included (a requested
 * address is a view of the request's URL, which pieces kept with it would keep alive), each
 * in one piece: a third less memory than the trees of parts they are made as.
 */
function fragmentsMadeOf(record: WalletRecord, testnet: boolean): Fragments {
  const key = `"${record.raw}"`;
  return {
    state: record.state ? ownString(indexerWalletJson(record.state)) : null,
    book: ownString(`${key}:${JSON.stringify(addressBookEntry(record, record.raw, testnet))}`),
    metadata: record.metadata === undefined ? null : ownString(`${key}:${JSON.stringify(record.metadata)}`),
  };
}

/** The answer to a request read-through refuses before parsing it. */
function refusalResponse(readThrough: ReadThroughLookup | null, addresses: number): ServedResponse {
  const answer = readThrough?.refusal?.(addresses) ?? { ok: false, status: 503, error: 'read-through is busy; retry shortly', retryAfterSeconds: 1 };
  if (answer.ok) throw new Error('a refusal must refuse');
  return jsonResponse(answer.status, { error: answer.error }, { 'retry-after': String(answer.retryAfterSeconds) });
}

interface CachedAnswer {
  readonly body: Buffer;
  /** When a served record in it turns stale (process clock). */
  readonly validUntil: number;
}

/** What an answer kept costs: its body, and its query (up to 1024 addresses, each some 70 bytes). */
const sizeOf = (query: string, answer: CachedAnswer): number => answer.body.length + query.length;

/**
 * Whole answers to repeated queries, by query string: at most CACHE_ENTRIES and
 * CACHE_BYTES with their queries (oldest out first), all dropped when the snapshot, the
 * watchlist, the testnet flag or maxAgeSeconds changes.
 */
function createAnswerCache() {
  let key: { snapshot: WalletsLookup | null; watched: WatchedKeys; testnet: boolean; maxAge: number } | null = null;
  const answers = new Map<string, CachedAnswer>();
  let bytes = 0;
  return {
    keyedBy(snapshot: WalletsLookup | null, request: WalletStatesRequest): void {
      const { watched, testnet, maxAgeSeconds: maxAge } = request;
      if (key?.snapshot === snapshot && key.watched === watched && key.testnet === testnet && key.maxAge === maxAge) return;
      key = { snapshot, watched, testnet, maxAge };
      answers.clear();
      bytes = 0;
    },
    get: (query: string): CachedAnswer | undefined => answers.get(query),
    set(query: string, answer: CachedAnswer): void {
      if (answer.body.length > CACHE_BYTES / 8) return;
      answers.set(query, answer);
      bytes += sizeOf(query, answer);
      for (const [oldest, entry] of answers) {
        if (answers.size <= CACHE_ENTRIES && bytes <= CACHE_BYTES) break;
        answers.delete(oldest);
        bytes -= sizeOf(oldest, entry);
      }
    },
  };
}
