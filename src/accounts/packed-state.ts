import type { Interning } from '../domain/interning.js';
import type { CurrencyAmounts, ServedWalletState } from '../domain/wallet-state.js';

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

/** What wallets of one kind share. */
interface Shared {
  readonly code_hash: string | null;
  readonly extra_currencies: CurrencyAmounts;
  readonly is_signature_allowed: boolean | null;
  readonly is_wallet: boolean | null;
  readonly status: string;
  readonly wallet_id: number | null;
  readonly wallet_type: string | null;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUE: readonly number[] = Array.from({ length: 128 }, (_, code) => BASE64.indexOf(String.fromCharCode(code)));
const TWO_32 = 4294967296;
const DECIMAL = /^(?:0|[1-9][0-9]{0,19})$/;
const HASH_AT = 16;

class PackedWalletState implements ServedWalletState {
  readonly address: string;
  readonly seqno: number | null;
  /** @internal the shared part */
  readonly k: Shared;
  /** @internal balance (8 bytes), logical time (8 bytes), hash (32 bytes) */
  readonly t: string;
  constructor(address: string, seqno: number | null, shared: Shared, tail: string) {
    this.address = address;
    this.seqno = seqno;
    this.k = shared;
    this.t = tail;
  }
  get balance(): string {
    return decimalAt(this.t, 0);
  }
  get last_transaction_lt(): string {
    return decimalAt(this.t, 8);
  }
  get last_transaction_hash(): string {
    return base64At(this.t, HASH_AT);
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
 * The state packed, its shared part kept once through `interning` (past its limit, a
 * wallet keeps its own); the state as it is when a field would not read back the same.
 */
export function packedState(state: ServedWalletState, interning: Interning): ServedWalletState {
  if (state instanceof PackedWalletState) return state;
  const { balance, last_transaction_lt: lt, last_transaction_hash: hash } = state;
  if (balance === null || lt === null || hash === null || (state.seqno !== null && !Number.isInteger(state.seqno))) return state;
  const bytes: number[] = [];
  if (!pushDecimal(bytes, balance) || !pushDecimal(bytes, lt) || !pushBase64(bytes, hash)) return state;
  const shared: Shared = {
    code_hash: state.code_hash,
    extra_currencies: state.extra_currencies,
    is_signature_allowed: state.is_signature_allowed,
    is_wallet: state.is_wallet,
    status: state.status,
    wallet_id: state.wallet_id,
    wallet_type: state.wallet_type,
  };
  const key = `state\0${JSON.stringify(shared)}`;
  return new PackedWalletState(state.address, state.seqno, interning.shared(key, () => shared) ?? shared, String.fromCharCode(...bytes));
}

/** Appends a canonical decimal below 2^64 as 8 bytes, high first; false when it is not one. */
function pushDecimal(out: number[], text: string): boolean {
  if (!DECIMAL.test(text)) return false;
  let high: number;
  let low: number;
  if (text.length <= 15) {
    const n = Number(text);
    high = Math.floor(n / TWO_32);
    low = n % TWO_32;
  } else {
    const n = BigInt(text);
    if (n >= 1n << 64n) return false;
    high = Number(n >> 32n);
    low = Number(n & 0xffffffffn);
  }
  out.push(high >>> 24, (high >>> 16) & 255, (high >>> 8) & 255, high & 255, low >>> 24, (low >>> 16) & 255, (low >>> 8) & 255, low & 255);
  return true;
}

function decimalAt(tail: string, at: number): string {
  const high = word(tail, at);
  const low = word(tail, at + 4);
  if (high < 2 ** 21) return String(high * TWO_32 + low);
  return ((BigInt(high) << 32n) | BigInt(low)).toString();
}

function word(tail: string, at: number): number {
  return tail.charCodeAt(at) * 16777216 + ((tail.charCodeAt(at + 1) << 16) | (tail.charCodeAt(at + 2) << 8) | tail.charCodeAt(at + 3));
}

/** Appends the 32 bytes of a padded standard base64 hash; false when the text is not exactly that (it would not read back the same). */
function pushBase64(out: number[], text: string): boolean {
  if (text.length !== 44 || text.charCodeAt(43) !== 61) return false;
  let bits = 0;
  let held = 0;
  for (let i = 0; i < 43; i += 1) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? (BASE64_VALUE[code] as number) : -1;
    if (value < 0) return false;
    bits = ((bits << 6) | value) & 0xffff;
    held += 6;
    if (held >= 8) {
      held -= 8;
      out.push((bits >>> held) & 255);
    }
  }
  // 43 characters carry 258 bits: the last 2 must be zero in the canonical form.
  return (bits & 3) === 0;
}

function base64At(tail: string, at: number): string {
  const codes: number[] = [];
  const byte = (i: number): number => tail.charCodeAt(at + i);
  for (let i = 0; i < 30; i += 3) {
    const n = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    codes.push(BASE64.charCodeAt(n >>> 18), BASE64.charCodeAt((n >>> 12) & 63), BASE64.charCodeAt((n >>> 6) & 63), BASE64.charCodeAt(n & 63));
  }
  const n = (byte(30) << 8) | byte(31);
  codes.push(BASE64.charCodeAt(n >>> 10), BASE64.charCodeAt((n >>> 4) & 63), BASE64.charCodeAt((n << 2) & 63), 61);
  return String.fromCharCode(...codes);
}
