import type { Interning } from '../domain/interning.js';
import { base64HashAt, bytesText, isBase64HashAt, isUnsignedTextAt, putBase64Hash, putUnsigned, unsignedAt } from '../domain/packed-bytes.js';
import { sharedIfEmpty, type CurrencyAmounts, type ServedWalletState } from '../domain/wallet-state.js';

/**
 * A wallet state held near its information: the fields wallets share (code hash, status,
 * wallet type, flags, wallet id, extra currencies) in one object kept once per kind of
 * wallet, and balance, logical time and last transaction hash as 48 bytes of one one-byte
 * string (two 64-bit integers and the hash's 32 bytes). About 120 bytes a wallet against
 * 250 for the state as parsed. Readers see ServedWalletState: every field reads back
 * exactly as the upstream sent it, so served bytes do not change.
 *
 * Only states whose packed fields read back to the same text are packed (balances and
 * logical times as canonical decimals below 2^64, the hash as padded standard base64 of
 * 32 bytes); any other state is held as it came.
 */

/** What wallets of one kind share: a packed state's fields beyond its bytes, address and seqno. */
export interface StateKind {
  readonly code_hash: string | null;
  readonly extra_currencies: CurrencyAmounts;
  readonly is_signature_allowed: boolean | null;
  readonly is_wallet: boolean | null;
  readonly status: string;
  readonly wallet_id: number | null;
  readonly wallet_type: string | null;
}

const HASH_AT = 16;
/** The length of a packed state's bytes: balance, logical time, hash. */
export const PACKED_BYTES = 48;

class PackedWalletState implements ServedWalletState {
  readonly address: string;
  readonly seqno: number | null;
  /** @internal the shared part */
  readonly k: StateKind;
  /** @internal balance (8 bytes), logical time (8 bytes), hash (32 bytes) */
  readonly t: string;
  constructor(address: string, seqno: number | null, shared: StateKind, tail: string) {
    this.address = address;
    this.seqno = seqno;
    this.k = shared;
    this.t = tail;
  }
  get balance(): string {
    return unsignedAt(this.t, 0, 8);
  }
  get last_transaction_lt(): string {
    return unsignedAt(this.t, 8, 8);
  }
  get last_transaction_hash(): string {
    return base64HashAt(this.t, HASH_AT);
  }
  get code_hash(): string | null {
    return this.k.code_hash;
  }
  get extra_currencies(): CurrencyAmounts {
    return this.k.extra_currencies;
  }
  get is_signature_allowed(): boolean | null {
    return this.k.is_signature_allowed;
  }
  get is_wallet(): boolean | null {
    return this.k.is_wallet;
  }
  get status(): string {
    return this.k.status;
  }
  get wallet_id(): number | null {
    return this.k.wallet_id;
  }
  get wallet_type(): string | null {
    return this.k.wallet_type;
  }
  /** The twelve fields as a plain object, in the API's order. */
  toJSON(): ServedWalletState {
    return plainState(this);
  }
}

/** Whether a state is held packed. */
export function isPackedState(state: unknown): state is ServedWalletState {
  return state instanceof PackedWalletState;
}

/** The twelve fields of any state as a plain object, in the API's order. */
export function plainState(s: ServedWalletState): ServedWalletState {
  return {
    address: s.address,
    balance: s.balance,
    code_hash: s.code_hash,
    extra_currencies: s.extra_currencies,
    is_signature_allowed: s.is_signature_allowed,
    is_wallet: s.is_wallet,
    last_transaction_hash: s.last_transaction_hash,
    last_transaction_lt: s.last_transaction_lt,
    seqno: s.seqno,
    status: s.status,
    wallet_id: s.wallet_id,
    wallet_type: s.wallet_type,
  };
}

/**
 * Whether two packed states say the same, from one string and one object compared, nothing
 * decoded; undefined when that does not decide it (either not packed, or shared parts kept
 * apart past the interning's limit).
 */
export function samePacked(a: ServedWalletState, b: ServedWalletState): boolean | undefined {
  if (!(a instanceof PackedWalletState) || !(b instanceof PackedWalletState)) return undefined;
  if (a.t !== b.t || a.seqno !== b.seqno || a.address !== b.address) return false;
  return a.k === b.k ? true : undefined;
}

/**
 * Whether a packed state's balance, logical time and last transaction hash read as these
 * texts, its bytes compared with them and nothing decoded (a poll asks it of every wallet
 * it holds); undefined for a state held as it came.
 */
export function packedBytesRead(state: ServedWalletState, balance: string | null, lt: string | null, hash: string | null): boolean | undefined {
  if (!(state instanceof PackedWalletState)) return undefined;
  const tail = state.t;
  return (
    balance !== null &&
    lt !== null &&
    hash !== null &&
    isUnsignedTextAt(tail, 0, balance) &&
    isUnsignedTextAt(tail, 8, lt) &&
    isBase64HashAt(tail, HASH_AT, hash)
  );
}

/**
 * Packs a state: the state packed, its shared part kept once through `interning` (past its
 * limit, a wallet keeps its own); the state as it is when a field would not read back the
 * same. `kind`: the state's shared part already known (a kind equal to what stateKind makes
 * of it, as interned), found without the interning's key. `address`: the copy of the
 * state's address to hold (the poll gives the watchlist's, equal to it), so no copy of the
 * state is made for it.
 */
export type StatePacker = (state: ServedWalletState, kind?: StateKind, address?: string) => ServedWalletState;

/** A packer for the states of one answer or one file: their bytes are put in one buffer, made here. */
export function createStatePacker(interning: Interning): StatePacker {
  const bytes = Buffer.alloc(PACKED_BYTES);
  return (state, kind, address = state.address) => {
    if (state instanceof PackedWalletState) return state;
    const { balance, last_transaction_lt: lt, last_transaction_hash: hash } = state;
    if (balance === null || lt === null || hash === null || (state.seqno !== null && !Number.isInteger(state.seqno))) return state;
    if (!putUnsigned(bytes, 0, balance, 8) || !putUnsigned(bytes, 8, lt, 8) || !putBase64Hash(bytes, HASH_AT, hash)) return state;
    return stateOfParts(address, state.seqno, kind ?? internedKind(stateKind(state), interning), bytesText(bytes, PACKED_BYTES));
  };
}

/** A kind's fields, in StateKind's order. */
export const KIND_FIELDS: readonly (keyof StateKind)[] = [
  'code_hash',
  'extra_currencies',
  'is_signature_allowed',
  'is_wallet',
  'status',
  'wallet_id',
  'wallet_type',
];

/** The fields of `fields` a kind holds, in StateKind's order (the order its interning key and the wallets file see). */
export function stateKind(fields: StateKind): StateKind {
  return {
    code_hash: fields.code_hash,
    extra_currencies: sharedIfEmpty(fields.extra_currencies),
    is_signature_allowed: fields.is_signature_allowed,
    is_wallet: fields.is_wallet,
    status: fields.status,
    wallet_id: fields.wallet_id,
    wallet_type: fields.wallet_type,
  };
}

/** The kind kept once through `interning` (past its limit, this one). */
export function internedKind(kind: StateKind, interning: Interning): StateKind {
  return interning.shared(`state\0${JSON.stringify(kind)}`, () => kind) ?? kind;
}

/** A packed state's kind; undefined for a state held as it came. */
export function packedKind(state: ServedWalletState): StateKind | undefined {
  return state instanceof PackedWalletState ? state.k : undefined;
}

/** A packed state's parts (the wallets file writes them as they are); null for a state held as it came. */
export function packedParts(state: ServedWalletState): { readonly bytes: string; readonly seqno: number | null; readonly kind: StateKind } | null {
  return state instanceof PackedWalletState ? { bytes: state.t, seqno: state.seqno, kind: state.k } : null;
}

/** A packed state made from its parts: `bytes` PACKED_BYTES characters below 256, `kind` as internedKind gives it. */
export function stateOfParts(address: string, seqno: number | null, kind: StateKind, bytes: string): ServedWalletState {
  return new PackedWalletState(address, seqno, kind, bytes);
}
