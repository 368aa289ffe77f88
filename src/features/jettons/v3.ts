import type { WatchedKeys } from '../../domain/config.js';
import type { JettonRecord, JettonSettings, JettonsSnapshot } from '../../domain/jettons.js';
import { MAX_ADDRESSES_PER_REQUEST, type AddressBookEntry } from '../../domain/wallet-state.js';
import { isFresh } from '../../snapshot/freshness.js';
import { friendlyForm, parseAddress } from '../../ton/address.js';
import { createSnapshotResponder, jsonResponse, unavailableResponse, type ServedResponse, type SnapshotQueryRequest } from '../../serve/response.js';

/**
 * `GET /api/v3/jetton/wallets?owner_address=…&jetton_address=…` from the snapshot, in the
 * indexer's shape (ton-index-go's JettonWalletsResponse): `jetton_wallets` (a row per
 * watched owner and configured jetton it has a jetton wallet of, fresh; owners in request
 * order, then jettons), `address_book` (every row's wallet, owner and master), `metadata`.
 * The indexer's rules hold: several `jetton_address` need exactly one `owner_address`;
 * `limit` (default 100) above 1000 is refused; `offset` pages. Owners that are not watched,
 * or masters not configured, have no rows (tonwatch only knows what it polls). Errors in
 * toncenter v3's form `{"error": …}`.
 */

export interface JettonWalletsRequest extends SnapshotQueryRequest {
  readonly watched: WatchedKeys;
  readonly jettons: readonly JettonSettings[];
  /** The owner's address book entry as the wallet snapshot has it (non-bounceable for wallets). */
  readonly ownerBook: (raw: string) => AddressBookEntry;
  readonly loading: boolean;
}

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

type Parsed = { ok: true; owners: string[]; masters: string[]; limit: number; offset: number } | { ok: false; error: string };

function decode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** The query's owners and masters (repeated and/or comma-separated, any form, duplicates once), limit and offset. */
export function parseJettonWalletsQuery(query: string): Parsed {
  const lists = { owner_address: [] as string[], jetton_address: [] as string[] };
  let limit = DEFAULT_LIMIT;
  let offset = 0;
  let count = 0;
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    const key = eq === -1 ? part : part.slice(0, eq);
    const value = decode(eq === -1 ? '' : part.slice(eq + 1));
    if (value === null) return { ok: false, error: `invalid ${key}: not valid percent-encoding` };
    if (key === 'limit' || key === 'offset') {
      if (!/^\d{1,9}$/.test(value)) return { ok: false, error: `invalid ${key}: ${value.slice(0, 20)}` };
      if (key === 'limit') limit = Number(value);
      else offset = Number(value);
      continue;
    }
    if (key !== 'owner_address' && key !== 'jetton_address') continue;
    for (const item of value.split(',')) {
      if (item.trim() === '') continue;
      count += 1;
      if (count > MAX_ADDRESSES_PER_REQUEST) return { ok: false, error: `too many addresses: at most ${MAX_ADDRESSES_PER_REQUEST} per request` };
      const parsed = parseAddress(item);
      if (!parsed.ok) return { ok: false, error: `invalid address ${item.slice(0, 100)}: ${parsed.reason}` };
      const list = lists[key];
      if (!list.includes(parsed.value.raw)) list.push(parsed.value.raw);
    }
  }
  if (limit > MAX_LIMIT) return { ok: false, error: `limit is not allowed: ${limit} > ${MAX_LIMIT}` };
  if (lists.owner_address.length === 0) return { ok: false, error: 'owner_address is required: tonwatch serves the jetton wallets of watched owners' };
  if (lists.jetton_address.length > 1 && lists.owner_address.length !== 1) {
    return { ok: false, error: 'several jetton_address values are accepted only with exactly one owner_address' };
  }
  return { ok: true, owners: lists.owner_address, masters: lists.jetton_address, limit: limit === 0 ? DEFAULT_LIMIT : limit, offset };
}

/** One row as the indexer writes it: its fields in its order. */
function rowJson(owner: string, master: string, wallet: string, record: JettonRecord): string {
  return JSON.stringify({
    address: wallet,
    balance: record.balance,
    owner,
    jetton: master,
    last_transaction_lt: record.lastTransactionLt ?? '0',
    code_hash: record.codeHash,
    data_hash: record.dataHash,
  });
}

export function createJettonWalletsHandler(wallOffset: () => number = () => 0) {
  const respond = createSnapshotResponder(wallOffset);
  return {
    serve(snapshot: JettonsSnapshot | null, request: JettonWalletsRequest): ServedResponse {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return jsonResponse(405, { error: `method ${request.method} not allowed; use GET` }, { allow: 'GET, HEAD' });
      }
      const parsed = parseJettonWalletsQuery(request.query);
      if (!parsed.ok) return jsonResponse(422, { error: parsed.error });
      if (request.jettons.length === 0) return jsonResponse(404, { error: 'no jettons are configured: add jettons and watchJettons to the config' });
      if (snapshot === null || !isFresh(snapshot.fetchedAt, request.now, request.maxAgeSeconds)) {
        return unavailableResponse('jetton', snapshot === null, request.loading, request);
      }
      const jettons = parsed.masters.length === 0 ? request.jettons : request.jettons.filter((j) => parsed.masters.includes(j.master));
      const rows: { owner: string; master: string; wallet: string; record: JettonRecord }[] = [];
      for (const owner of parsed.owners) {
        if (!request.watched.has(owner)) continue;
        for (const jetton of jettons) {
          const record = snapshot.jettons.get(jetton.name)?.get(owner);
          if (record === undefined || !isFresh(record.fetchedAt, request.now, request.maxAgeSeconds)) continue;
          const wallet = record.wallet;
          if (wallet !== null) rows.push({ owner, master: jetton.master, wallet, record });
        }
      }
      const page = rows.slice(parsed.offset, parsed.offset + parsed.limit);
      const form = (raw: string, bounceable: boolean): AddressBookEntry => ({
        user_friendly: friendlyForm(raw, { bounceable, testnet: request.testnet }),
        domain: null,
      });
      const book = new Map<string, AddressBookEntry>();
      for (const { owner, master, wallet } of page) {
        book.set(wallet, form(wallet, true));
        book.set(owner, request.ownerBook(owner));
        book.set(master, form(master, true));
      }
      const bookJson = [...book].map(([raw, entry]) => `${JSON.stringify(raw)}:${JSON.stringify(entry)}`).join(',');
      const rowsJson = page.map((row) => rowJson(row.owner, row.master, row.wallet, row.record)).join(',');
      const body = Buffer.from(`{"jetton_wallets":[${rowsJson}],"address_book":{${bookJson}},"metadata":{}}`);
      return respond(body, snapshot.fetchedAt, request.now, request.nextPollDueAt);
    },
  };
}
