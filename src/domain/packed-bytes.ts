/**
 * Fixed-width fields in a one-byte string, for records held near their information
 * (accounts/packed-state.ts, features/jettons/packed-record.ts): unsigned integers as
 * 8 or 16 bytes, high first, and 32-byte hashes. Each put writes a field's bytes at its
 * place in a buffer that a packer reuses for record after record (bytesText makes the
 * record's string from it), and says false when the text would not read back the same
 * from them; each read gives back exactly the text that was put. An array of numbers
 * grown by pushes instead left about a kilobyte of garbage for every record packed.
 */

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUE: readonly number[] = Array.from({ length: 128 }, (_, code) => BASE64.indexOf(String.fromCharCode(code)));
const HEX = '0123456789ABCDEF';
const TWO_32 = 4294967296;
/** Canonical decimals (no sign, no leading zero) that fit 8 or 16 bytes by length; the value is checked too. */
const DECIMAL = { 8: /^(?:0|[1-9][0-9]{0,19})$/, 16: /^(?:0|[1-9][0-9]{0,38})$/ } as const;

export type Width = 8 | 16;

/**
 * The value of a canonical decimal (no sign, no leading zero but in "0" itself) of at most
 * 15 digits, exact as a number, read with nothing made; -1 for any other text. A poll reads
 * every changed wallet's balance and logical time this way.
 */
function smallDecimal(text: string): number {
  const length = text.length;
  if (length === 0 || length > 15 || (length > 1 && text.charCodeAt(0) === 48)) return -1;
  let n = 0;
  for (let i = 0; i < length; i += 1) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

/** The one-byte string of the first `length` bytes of `bytes`: a packed record's own string. */
export function bytesText(bytes: Buffer, length: number): string {
  return bytes.toString('latin1', 0, length);
}

/** Puts a canonical decimal below 2^(8·width) as the `width` bytes at `at`, high first; false when it is not one. */
export function putUnsigned(out: Uint8Array, at: number, text: string, width: Width): boolean {
  const small = smallDecimal(text);
  if (small >= 0) {
    for (let i = 0; i < width - 8; i += 1) out[at + i] = 0;
    putWord(out, at + width - 8, Math.floor(small / TWO_32));
    putWord(out, at + width - 4, small % TWO_32);
    return true;
  }
  // Longer than 15 digits, or not a canonical decimal at all.
  if (!DECIMAL[width].test(text)) return false;
  let n = BigInt(text);
  if (n >> BigInt(8 * width) !== 0n) return false;
  for (let i = width - 1; i >= 0; i -= 1, n >>= 8n) out[at + i] = Number(n & 255n);
  return true;
}

/** The decimal text of the `width` bytes at `at`. */
export function unsignedAt(tail: string, at: number, width: Width): string {
  if (width === 16) {
    if (word(tail, at) === 0 && word(tail, at + 4) === 0) return unsignedAt(tail, at + 8, 8);
    return ((BigInt(`0x${hexAt(tail, at, 8)}`) << 64n) | BigInt(`0x${hexAt(tail, at + 8, 8)}`)).toString();
  }
  const high = word(tail, at);
  const low = word(tail, at + 4);
  if (high < 2 ** 21) return String(high * TWO_32 + low);
  return ((BigInt(high) << 32n) | BigInt(low)).toString();
}

/**
 * Whether `text` is exactly what unsignedAt gives for the 8 bytes at `at`, without making
 * that text: a poll compares every wallet's new balance and logical time with the held
 * ones. Up to 15 digits (balances under a million TON, today's logical times) the digits
 * are summed as a number, exactly; past that, the text is made and compared.
 */
export function isUnsignedTextAt(tail: string, at: number, text: string): boolean {
  const high = word(tail, at);
  if (high >= 2 ** 21 || text.length > 15) return unsignedAt(tail, at, 8) === text;
  // -1 (not a canonical decimal) equals no value held.
  return smallDecimal(text) === high * TWO_32 + word(tail, at + 4);
}

/** Puts the 32 bytes of a padded standard base64 hash at `at`; false when the text is not exactly that. */
export function putBase64Hash(out: Uint8Array, at: number, text: string): boolean {
  if (text.length !== 44 || text.charCodeAt(43) !== 61) return false;
  let bits = 0;
  let held = 0;
  let next = at;
  for (let i = 0; i < 43; i += 1) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? (BASE64_VALUE[code] as number) : -1;
    if (value < 0) return false;
    bits = ((bits << 6) | value) & 0xffff;
    held += 6;
    if (held >= 8) {
      held -= 8;
      out[next] = (bits >>> held) & 255;
      next += 1;
    }
  }
  // 43 characters carry 258 bits: the last 2 must be zero in the canonical form.
  return (bits & 3) === 0;
}

/** The 24 bits of the hash's 3-byte group `group` (0–10) at `at`: the last has 2 bytes, the third read as 0. */
function groupAt(tail: string, at: number, group: number): number {
  const i = at + 3 * group;
  return (tail.charCodeAt(i) << 16) | (tail.charCodeAt(i + 1) << 8) | (group < 10 ? tail.charCodeAt(i + 2) : 0);
}

/** The base64 character code of the 6 bits of `n` at `shift`. */
const codeOf = (n: number, shift: number): number => BASE64.charCodeAt((n >>> shift) & 63);

/** The padded standard base64 of the 32 bytes at `at`: 11 groups of 4 characters, the last ending in `=`. */
export function base64HashAt(tail: string, at: number): string {
  const codes = new Array<number>(44);
  for (let group = 0; group < 11; group += 1) {
    const n = groupAt(tail, at, group);
    const c = 4 * group;
    codes[c] = codeOf(n, 18);
    codes[c + 1] = codeOf(n, 12);
    codes[c + 2] = codeOf(n, 6);
    codes[c + 3] = codeOf(n, 0);
  }
  codes[43] = 61;
  return String.fromCharCode(...codes);
}

/** Whether `text` is exactly base64HashAt's text for the 32 bytes at `at`, without making it. */
export function isBase64HashAt(tail: string, at: number, text: string): boolean {
  if (text.length !== 44 || text.charCodeAt(43) !== 61) return false;
  for (let group = 0; group < 11; group += 1) {
    const n = groupAt(tail, at, group);
    const c = 4 * group;
    if (text.charCodeAt(c) !== codeOf(n, 18) || text.charCodeAt(c + 1) !== codeOf(n, 12) || text.charCodeAt(c + 2) !== codeOf(n, 6)) return false;
    if (group < 10 && text.charCodeAt(c + 3) !== codeOf(n, 0)) return false;
  }
  return true;
}

/** Puts the bytes of uppercase hex text (an even number of digits) at `at`; false on any other character. */
export function putUpperHex(out: Uint8Array, at: number, text: string): boolean {
  if (text.length % 2 !== 0) return false;
  for (let i = 0; i < text.length; i += 2) {
    const high = HEX.indexOf(text.charAt(i));
    const low = HEX.indexOf(text.charAt(i + 1));
    if (high < 0 || low < 0) return false;
    out[at + i / 2] = (high << 4) | low;
  }
  return true;
}

/** The uppercase hex of the `count` bytes at `at`. */
export function hexAt(tail: string, at: number, count: number): string {
  const codes: number[] = [];
  for (let i = at; i < at + count; i += 1) {
    const byte = tail.charCodeAt(i);
    codes.push(HEX.charCodeAt(byte >>> 4), HEX.charCodeAt(byte & 15));
  }
  return String.fromCharCode(...codes);
}

function putWord(out: Uint8Array, at: number, n: number): void {
  out[at] = n >>> 24;
  out[at + 1] = (n >>> 16) & 255;
  out[at + 2] = (n >>> 8) & 255;
  out[at + 3] = n & 255;
}

function word(tail: string, at: number): number {
  return tail.charCodeAt(at) * 16777216 + ((tail.charCodeAt(at + 1) << 16) | (tail.charCodeAt(at + 2) << 8) | tail.charCodeAt(at + 3));
}
