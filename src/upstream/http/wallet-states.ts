import type { ZodSafeParseResult } from 'zod';
import { isObject, isPlainRecord, WALLET_FIELD_CHECKS } from '../../domain/wallet-field-checks.js';
import type { AddressBookEntry, ServedWalletState } from '../../domain/wallet-state.js';
import { filledAddressBookEntry, servedWalletState, walletStatesResponseSchema, type UpstreamWalletFields, type WalletStatesResponse } from './schemas.js';

/**
 * Decoding a walletStates answer: the wallet poll's hot path. A zod parse allocates a few
 * dozen objects per account; this checks the same rules by hand (field by field from
 * WALLET_STATE_FIELDS) and builds each account's twelve fields once.
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
  const fields = value as Record<string, unknown>;
  for (let i = 0; i < WALLET_FIELD_CHECKS.length; i += 1) {
    const { name, required, check } = WALLET_FIELD_CHECKS[i] as (typeof WALLET_FIELD_CHECKS)[number];
    const field = fields[name];
    // Required: present and valid. Otherwise nullish() too: absent, null, or valid.
    if (required ? !check(field) : field !== undefined && field !== null && !check(field)) return null;
  }
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

const optional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || value === null || check(value);
const isString = (value: unknown): boolean => typeof value === 'string';
