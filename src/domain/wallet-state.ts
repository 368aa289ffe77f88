/**
 * A wallet's state as toncenter's v3 API serves it (`/api/v3/walletStates`): twelve fields,
 * in the API's order. WALLET_STATE_FIELDS is the one list of them; the type, the upstream
 * and snapshot-file schemas, the hand-written decoders and the equality check are all
 * derived from it, so a field added here is seen everywhere or fails to compile.
 */

/** What a field holds. `decimal` is an unsigned integer written as a decimal string. */
export type WalletFieldKind = 'string' | 'decimal' | 'boolean' | 'integer' | 'currencies';

export interface WalletFieldSpec {
  readonly name: string;
  readonly kind: WalletFieldKind;
  /**
   * Always sent by upstreams and never null (address, status). Any other field may be left
   * out (uninit accounts have no code_hash, seqno, wallet_type, …): the snapshot then holds
   * null, except `currencies`, held as `{}`. What a client is sent follows the indexer's
   * omission rule (serve/wallet-json.ts).
   */
  readonly required: boolean;
}

export const WALLET_STATE_FIELDS = [
  { name: 'address', kind: 'string', required: true },
  { name: 'balance', kind: 'decimal', required: false },
  { name: 'code_hash', kind: 'string', required: false },
  { name: 'extra_currencies', kind: 'currencies', required: false },
  { name: 'is_signature_allowed', kind: 'boolean', required: false },
  { name: 'is_wallet', kind: 'boolean', required: false },
  { name: 'last_transaction_hash', kind: 'string', required: false },
  { name: 'last_transaction_lt', kind: 'decimal', required: false },
  { name: 'seqno', kind: 'integer', required: false },
  { name: 'status', kind: 'string', required: true },
  { name: 'wallet_id', kind: 'integer', required: false },
  { name: 'wallet_type', kind: 'string', required: false },
] as const satisfies readonly WalletFieldSpec[];

type Field = (typeof WALLET_STATE_FIELDS)[number];

/** Currency id → raw amount (decimal string). */
export type CurrencyAmounts = Readonly<Record<string, string>>;

/** No extra currencies: one object that nearly every state shares. */
export const NO_CURRENCIES: CurrencyAmounts = Object.freeze({});

/** NO_CURRENCIES for an object without own keys; anything else as it is. */
export function sharedIfEmpty<T>(value: T): T | CurrencyAmounts {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) return value;
  for (const key in value) if (Object.hasOwn(value, key)) return value;
  return NO_CURRENCIES;
}

interface KindValue {
  string: string;
  decimal: string;
  boolean: boolean;
  integer: number;
  currencies: CurrencyAmounts;
}

/** Served value of a field: null when left out, except currencies (`{}`) and required fields. */
type ServedValue<F extends Field> = KindValue[F['kind']] | (F['required'] extends true ? never : F['kind'] extends 'currencies' ? never : null);

/** The twelve fields as served. `address` is the raw uppercase form. */
export type ServedWalletState = { readonly [F in Field as F['name']]: ServedValue<F> };

export type WalletFieldName = keyof ServedWalletState;

/** The fields upstreams always send (address, status). */
export type RequiredWalletField = Extract<Field, { required: true }>['name'];

/** An address book entry as served: `user_friendly` and `domain` (null when unknown), plus whatever else the upstream sent (`interfaces`). */
export interface AddressBookEntry {
  readonly user_friendly: string | null;
  readonly domain: string | null;
  readonly [extra: string]: unknown;
}

/** At most this many addresses in one walletStates request (toncenter's API limit). */
export const MAX_ADDRESSES_PER_REQUEST = 1024;
