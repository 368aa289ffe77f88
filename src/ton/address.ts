import type { Address } from '@ton/core';

/**
 * Account addresses. Every accepted form (raw `wc:hex` either case, user-friendly base64
 * or base64url with any flags) maps to one canonical key: the raw form in uppercase hex,
 * as real upstreams print it. The user-friendly forms are read and written here, with a
 * table-driven CRC16 and Node's base64: a watchlist of 100,000 user-friendly lines is
 * read at every start, and @ton/core's parser (a bit-by-bit CRC16, an Address of five
 * closures per address, and loading @ton/core itself) took most of a start's budget.
 * test/ton/address.test.ts pins both directions to @ton/core on random addresses.
 */

export interface ParsedAddress {
  /** `0:29023DEB…E563`: workchain in decimal, 64 uppercase hex digits. */
  readonly raw: string;
}

export type AddressParseResult = { readonly ok: true; readonly value: ParsedAddress } | { readonly ok: false; readonly reason: string };

const RAW_FORM = /^-?\d{1,3}:[0-9a-fA-F]{64}$/;
/**
 * Already the canonical key, exactly as rawKey() prints it (workchain in decimal, 64
 * uppercase hex digits), as upstreams print addresses: hot paths use it as-is. By hand
 * rather than a regex: this runs once per wallet per poll.
 */
export function isCanonicalRaw(text: string): boolean {
  const colon = text.length - 65;
  if (colon < 1 || colon > 4 || text.charCodeAt(colon) !== 58 /* : */) return false;
  const first = text.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  if (first === colon) return false;
  // String(n) has no leading zero and no "-0".
  if (text.charCodeAt(first) === 48 && (colon - first > 1 || first === 1)) return false;
  for (let i = first; i < colon; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  for (let i = colon + 1; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (!((code >= 48 && code <= 57) || (code >= 65 && code <= 70))) return false;
  }
  return true;
}
const FRIENDLY_FORM = /^[A-Za-z0-9+/_-]{48}$/;

/** Formats an Address as the canonical raw uppercase key. */
export function rawKey(address: Address): string {
  return rawText(address.workChain, address.hash.toString('hex').toUpperCase());
}

/** CRC-16/XMODEM (polynomial 0x1021, initial 0), the checksum of user-friendly forms: one table lookup per byte. */
const CRC_TABLE = Uint16Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

/** The CRC16 `crc` carried on over one more byte. */
const crcStep = (crc: number, byte: number): number => ((crc << 8) & 0xffff) ^ (CRC_TABLE[((crc >> 8) ^ byte) & 0xff] as number);

/** The CRC16 of `bytes[0, end)`. */
export function crc16(bytes: Uint8Array, end = bytes.length): number {
  let crc = 0;
  for (let i = 0; i < end; i += 1) crc = crcStep(crc, bytes[i] as number);
  return crc;
}

const BOUNCEABLE_TAG = 0x11;
const NON_BOUNCEABLE_TAG = 0x51;
const TEST_FLAG = 0x80;

/**
 * A raw key made of its parts, in one piece: joined, where a concatenation would be a tree
 * of its parts (V8). Keys are kept: a watchlist of user-friendly forms keeps one for every
 * wallet, and as concatenations they cost 48 B a wallet more, index included. Made so from
 * the start, it needs no copy (ownString, for text that exists already).
 */
function rawText(workchain: number, hex: string): string {
  return [workchain, ':', hex].join('');
}

/**
 * The raw key of a 48-character user-friendly form (either base64 alphabet, or both),
 * or why it is not one: the tag, workchain and checksum rules of @ton/core's parser.
 */
function rawOfFriendly(text: string): AddressParseResult {
  // Node's base64 decoder reads both alphabets; 48 characters are always 36 bytes.
  const bytes = Buffer.from(text, 'base64');
  if (crc16(bytes, 34) !== bytes.readUInt16BE(34)) return { ok: false, reason: `Invalid checksum: ${text}` };
  const tag = (bytes[0] as number) & ~TEST_FLAG;
  if (tag !== BOUNCEABLE_TAG && tag !== NON_BOUNCEABLE_TAG) return { ok: false, reason: 'Unknown address tag' };
  // As @ton/core reads it: 0xff is the masterchain, any other byte a workchain 0..254.
  const workchain = bytes[1] === 0xff ? -1 : (bytes[1] as number);
  return { ok: true, value: { raw: rawText(workchain, bytes.toString('hex', 2, 34).toUpperCase()) } };
}

/**
 * Parses any accepted address form. A space inside a base64 form is read as `+`: a raw
 * `+` in a query string decodes as a space.
 */
export function parseAddress(input: string): AddressParseResult {
  const text = input.trim();
  if (text.length === 0) return { ok: false, reason: 'empty address' };
  // Already canonical (as watchlist files and upstreams mostly print it): its own key.
  if (isCanonicalRaw(text)) return { ok: true, value: { raw: text } };
  if (RAW_FORM.test(text)) {
    const colon = text.indexOf(':');
    // parseInt gives -0 for "-0" and "-00", printed "0" as the workchain of an Address is.
    return { ok: true, value: { raw: rawText(Number.parseInt(text.slice(0, colon), 10), text.slice(colon + 1).toUpperCase()) } };
  }
  const friendly = text.replaceAll(' ', '+');
  if (!FRIENDLY_FORM.test(friendly)) return { ok: false, reason: 'not a raw (wc:hex) or 48-character user-friendly address' };
  return rawOfFriendly(friendly);
}

export interface FriendlyFormOptions {
  readonly bounceable: boolean;
  readonly testnet: boolean;
}

/** The user-friendly base64url form of an Address, as toncenter's address book prints it. */
export function userFriendly(address: Address, options: FriendlyFormOptions): string {
  return friendlyForm(rawKey(address), options);
}

/**
 * The user-friendly base64url form of a canonical raw key (tag, workchain byte, hash,
 * CRC16), without making an Address: the address book of every served wallet is built
 * from it.
 */
export function friendlyForm(raw: string, options: FriendlyFormOptions): string {
  const colon = raw.indexOf(':');
  const bytes = Buffer.allocUnsafe(36);
  bytes[0] = (options.bounceable ? BOUNCEABLE_TAG : NON_BOUNCEABLE_TAG) | (options.testnet ? TEST_FLAG : 0);
  bytes.writeInt8((Number(raw.slice(0, colon)) << 24) >> 24, 1);
  bytes.write(raw.slice(colon + 1), 2, 32, 'hex');
  bytes.writeUInt16BE(crc16(bytes, 34), 34);
  return bytes.toString('base64url');
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const BASE64URL_CODES = Uint8Array.from(BASE64URL, (c) => c.charCodeAt(0));

/**
 * Whether `text` is exactly friendlyForm(raw, options), read against it character by
 * character with nothing made: a poll asks it of every wallet's address book entry
 * (accounts/address-book.ts derivedStill). `raw` is a canonical key.
 */
export function isFriendlyFormOf(text: string, raw: string, options: FriendlyFormOptions): boolean {
  const hexAt = raw.length - 64;
  if (text.length !== 48 || hexAt < 2) return false;
  const tag = (options.bounceable ? BOUNCEABLE_TAG : NON_BOUNCEABLE_TAG) | (options.testnet ? TEST_FLAG : 0);
  // As friendlyForm writes it: the workchain's low byte (two's complement: -1 is 0xff); "0:" read without a slice.
  const workchain = hexAt === 2 && raw.charCodeAt(0) === 48 ? 0 : Number(raw.slice(0, hexAt - 1)) & 255;
  // The 36 bytes in order (tag, workchain, the hash's 32, the CRC's 2), each CRC'd as it
  // passes; every 3 bytes (`group`) make 4 characters. Locals only: a poll runs this for
  // every wallet, and a closure over the CRC would be made at every call.
  let crc = crcStep(crcStep(0, tag), workchain);
  let group = (tag << 8) | workchain;
  let at = 0;
  for (let i = 0; i < 32; i += 1) {
    const byte = (hexValue(raw.charCodeAt(hexAt + 2 * i)) << 4) | hexValue(raw.charCodeAt(hexAt + 2 * i + 1));
    crc = crcStep(crc, byte);
    group = (group << 8) | byte;
    // Bytes 2 + i: a group ends at byte 4, 7, …, 32, that is where i is a multiple of 3.
    if (i % 3 === 0) {
      if (!isBase64GroupAt(text, at, group)) return false;
      at += 4;
      group = 0;
    }
  }
  // Byte 33, the hash's last, with the CRC's two.
  return isBase64GroupAt(text, at, (group << 16) | crc);
}

/** Whether text[at, at + 4) is the base64url of the 3 bytes in `group`. */
const isBase64GroupAt = (text: string, at: number, group: number): boolean =>
  text.charCodeAt(at) === BASE64URL_CODES[(group >>> 18) & 63] &&
  text.charCodeAt(at + 1) === BASE64URL_CODES[(group >>> 12) & 63] &&
  text.charCodeAt(at + 2) === BASE64URL_CODES[(group >>> 6) & 63] &&
  text.charCodeAt(at + 3) === BASE64URL_CODES[group & 63];

/**
 * The value of an uppercase hex digit's character code, from a table: a comparison would
 * branch one way or the other at random, 64 times an address.
 */
const HEX_VALUES = Uint8Array.from({ length: 128 }, (_, code) => Math.max(0, '0123456789ABCDEF'.indexOf(String.fromCharCode(code))));
const hexValue = (code: number): number => HEX_VALUES[code & 127] as number;

/**
 * The shortest form upstreams accept for a canonical raw key: user-friendly, base64url,
 * 48 characters that need no escaping in a URL (the raw form takes 66, and its `:` is
 * often escaped). Tagged bounceable for mainnet; upstreams ignore the flags. This runs for
 * every address of every walletStates request.
 */
export function compactForm(raw: string): string {
  return friendlyForm(raw, { bounceable: true, testnet: false });
}
