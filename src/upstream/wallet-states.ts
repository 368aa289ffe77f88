import type { ZodSafeParseResult } from 'zod';
import { isObject, isPlainRecord } from '../plain-json.js';
import type { AddressBookEntry, ServedWalletState } from '../snapshot/types.js';
import { filledAddressBookEntry, servedWalletState, walletStatesResponseSchema, type UpstreamWalletFields, type WalletStatesResponse } from './schemas.js';

/**
 * Decoding a walletStates answer: the wallet poll's hot path. A zod parse allocates a few
 * dozen objects per account, which at 100,000 watched wallets was most of a cycle's CPU
 * time; this checks the same rules by hand and builds each account's twelve fields once.
 *
 * The zod schemas in schemas.ts stay the reference: anything this decoder cannot vouch
 * for (a field of the wrong type, a missing status, anything odd) goes to zod, so
 * errors, and the acceptance of odd but valid bodies, are exactly zod's. A property test
 * holds the two to agreeing.
 */
export function decodeWalletStates(body: unknown): ZodSafeParseResult<WalletStatesResponse> {
  const decoded = decodeWalletStatesQuickly(body);
  return decoded !== null ? { success: true, data: decoded } : walletStatesResponseSchema.safeParse(body);
}

/** For the client: the decoder with a zod schema's face. */
export const walletStatesDecoder = { safeParse: decodeWalletStates };

/** The answer, decoded as walletStatesResponseSchema would; null when not sure it would accept it. */
export function decodeWalletStatesQuickly(body: unknown): WalletStatesResponse | null {
  if (!isObject(body)) return null;
  const { wallets: list, address_book: book = {}, metadata = {} } = body as { wallets?: unknown; address_book?: unknown; metadata?: unknown };
  if (!Array.isArray(list) || !isPlainRecord(book) || !isPlainRecord(metadata)) return null;
  const wallets: ServedWalletState[] = new Array<ServedWalletState>(list.length);
  for (let i = 0; i < list.length; i += 1) {
    const state = walletState(list[i]);
    if (state === null) return null;
    wallets[i] = state;
  }
  let entries: Record<string, AddressBookEntry> = book as Record<string, AddressBookEntry>;
  for (const key in book) {
    const entry = bookEntry(book[key]);
    if (entry === null) return null;
    if (entry !== book[key]) {
      // Only when an entry needed filling in: a copy, so the parsed body is never changed.
      if (entries === book) entries = { ...book } as Record<string, AddressBookEntry>;
      entries[key] = entry;
    }
  }
  return { wallets, address_book: entries, metadata };
}

function walletState(value: unknown): ServedWalletState | null {
  if (!isObject(value)) return null;
  const {
    address,
    balance,
    code_hash,
    extra_currencies,
    is_signature_allowed,
    is_wallet,
    last_transaction_hash,
    last_transaction_lt,
    seqno,
    status,
    wallet_id,
    wallet_type,
  } = value as Record<string, unknown>;
  if (typeof address !== 'string' || typeof status !== 'string') return null;
  if (!optional(balance, isDigits) || !optional(last_transaction_lt, isDigits)) return null;
  if (!optional(code_hash, isString) || !optional(last_transaction_hash, isString) || !optional(wallet_type, isString)) return null;
  if (!optional(is_signature_allowed, isBoolean) || !optional(is_wallet, isBoolean)) return null;
  if (!optional(seqno, Number.isSafeInteger) || !optional(wallet_id, Number.isSafeInteger)) return null;
  if (!optional(extra_currencies, isCurrencyAmounts)) return null;
  return servedWalletState(value as UpstreamWalletFields);
}

/** The entry itself when complete; a filled-in copy when user_friendly or domain is left out. */
function bookEntry(value: unknown): AddressBookEntry | null {
  if (!isObject(value)) return null;
  const { user_friendly: friendly, domain } = value as { user_friendly?: unknown; domain?: unknown };
  if (!optional(friendly, isString) || !optional(domain, isString)) return null;
  if (friendly !== undefined && domain !== undefined) return value as AddressBookEntry;
  return filledAddressBookEntry(value as { user_friendly?: string | null; domain?: string | null });
}

/** `nullish()`: absent, null, or passing the check. */
const optional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || value === null || check(value);
const isString = (value: unknown): boolean => typeof value === 'string';
const isBoolean = (value: unknown): boolean => typeof value === 'boolean';

/** /^\d+$/ without the regex engine: this runs a few times per wallet. */
function isDigits(value: unknown): boolean {
  if (typeof value !== 'string' || value.length === 0) return false;
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

function isCurrencyAmounts(value: unknown): boolean {
  if (!isPlainRecord(value)) return false;
  for (const key in value) if (!isDigits(value[key])) return false;
  return true;
}
