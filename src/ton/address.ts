import { createRequire } from 'node:module';
import type * as TonCore from '@ton/core';
import type { Address } from '@ton/core';

/**
 * @ton/core, loaded on first use: a watchlist and upstream answers in canonical raw form
 * never need it, and loading it is a fifth of start-up. It is a CommonJS package, so it
 * can be required synchronously where it is needed.
 */
let tonCore: typeof TonCore | undefined;
const core = (): typeof TonCore => (tonCore ??= createRequire(import.meta.url)('@ton/core') as typeof TonCore);

/** Loads @ton/core now, if it is not loaded yet: the upstream client does it before its first walletStates request. */
export function loadAddressCodec(): void {
  core();
}

/**
 * Account addresses, parsed and formatted by @ton/core only (no hand-written CRC16 or
 * base64). Every accepted form (raw `wc:hex` either case, user-friendly base64 or
 * base64url with any flags) maps to one canonical key: the raw form in uppercase hex,
 * as real upstreams print it.
 */

export interface ParsedAddress {
  /** `0:29023DEB…E563`: workchain in decimal, 64 uppercase hex digits. */
  readonly raw: string;
}

export type AddressParseResult = { readonly ok: true; readonly value: ParsedAddress } | { readonly ok: false; readonly reason: string };

const RAW_FORM = /^-?\d{1,3}:[0-9a-fA-F]{64}$/;
/**
 * Already the canonical key, exactly as rawKey() prints it (workchain in decimal, 64
 * uppercase hex digits), as upstreams print addresses: hot paths use it as-is without
 * going through @ton/core. By hand rather than a regex: this runs once per wallet per poll.
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
  return `${address.workChain}:${address.hash.toString('hex').toUpperCase()}`;
}

/**
 * Parses any accepted address form. A space inside a base64 form is read as `+`: a raw
 * `+` in a query string decodes as a space.
 */
export function parseAddress(input: string): AddressParseResult {
  const text = input.trim();
  if (text.length === 0) return { ok: false, reason: 'empty address' };
  // Already canonical (as watchlist files and upstreams mostly print it): rawKey(parseRaw)
  // would give the same text back, so no Address is made (each holds five closures).
  if (isCanonicalRaw(text)) return { ok: true, value: { raw: text } };
  try {
    if (RAW_FORM.test(text)) {
      return { ok: true, value: { raw: rawKey(core().Address.parseRaw(text)) } };
    }
    const friendly = text.replaceAll(' ', '+');
    if (!FRIENDLY_FORM.test(friendly)) {
      return { ok: false, reason: 'not a raw (wc:hex) or 48-character user-friendly address' };
    }
    return { ok: true, value: { raw: rawKey(core().Address.parseFriendly(friendly).address) } };
  } catch (cause) {
    return { ok: false, reason: cause instanceof Error ? cause.message : String(cause) };
  }
}

export interface FriendlyFormOptions {
  readonly bounceable: boolean;
  readonly testnet: boolean;
}

/** The Address of a canonical key, made when needed (user-friendly forms). */
export function addressOfRaw(raw: string): Address {
  return core().Address.parseRaw(raw);
}

/** The user-friendly base64url form, as toncenter's address book prints it. */
export function userFriendly(address: Address, options: FriendlyFormOptions): string {
  return address.toString({ urlSafe: true, bounceable: options.bounceable, testOnly: options.testnet });
}

/**
 * The shortest form upstreams accept for a canonical raw key: user-friendly, base64url,
 * 48 characters that need no escaping in a URL (the raw form takes 66, and its `:` is
 * often escaped). Tagged bounceable for mainnet; upstreams ignore the flags. Built from the
 * key's bytes with @ton/core's CRC16 and Node's base64url, without making an Address
 * (this runs for every address of every walletStates request).
 */
export function compactForm(raw: string): string {
  const colon = raw.indexOf(':');
  const bytes = Buffer.allocUnsafe(36);
  bytes[0] = 0x11;
  bytes.writeInt8(Number(raw.slice(0, colon)), 1);
  bytes.write(raw.slice(colon + 1), 2, 32, 'hex');
  bytes.set(core().crc16(bytes.subarray(0, 34)), 34);
  return bytes.toString('base64url');
}
