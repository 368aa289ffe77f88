import { MAX_ADDRESSES_PER_REQUEST } from '../../domain/wallet-state.js';
import { parseAddress, type ParsedAddress } from '../../ton/address.js';

/** One requested address, canonical. */
export type RequestedAddress = ParsedAddress;

export type WalletQuery =
  | { readonly ok: true; readonly addresses: readonly RequestedAddress[] }
  | { readonly ok: false; readonly error: string }
  /** `stopAt` said stop at an address: the rest were not parsed. `values` counts every value given. */
  | { readonly ok: 'stopped'; readonly values: number };

/** x-www-form-urlencoded value decoding: `+` is a space (parseAddress reads it back as `+`). */
function decodeValue(value: string): string | null {
  if (!value.includes('%') && !value.includes('+')) return value;
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * Reads `address` from a raw query string: repeated (`?address=A&address=B`) and/or
 * comma-separated, any accepted form, a `+` that arrived as a space read as `+`. At most
 * 1024 values, counted as given (duplicates included). Duplicates are returned once, in
 * first-seen order. `stopAt`, when given, is asked each parsed address in turn: true
 * stops there, the rest unparsed (a request that is to be refused costs no more).
 */
export function parseWalletQuery(query: string, stopAt?: (raw: string) => boolean): WalletQuery {
  const values: string[] = [];
  for (const part of query.split('&')) {
    if (!part.startsWith('address=')) continue;
    const decoded = decodeValue(part.slice(8));
    if (decoded === null) return { ok: false, error: `invalid address: ${part.slice(8, 128)} is not valid percent-encoding` };
    for (const value of decoded.split(',')) {
      if (value === '' || value.trim() === '') continue;
      values.push(value);
      if (values.length > MAX_ADDRESSES_PER_REQUEST) {
        return { ok: false, error: `too many addresses: at most ${MAX_ADDRESSES_PER_REQUEST} per request` };
      }
    }
  }
  if (values.length === 0) return { ok: false, error: 'address of account is required' };
  const seen = new Set<string>();
  const addresses: RequestedAddress[] = [];
  for (const value of values) {
    const parsed = parseAddress(value);
    if (!parsed.ok) return { ok: false, error: `invalid address ${value.slice(0, 100)}: ${parsed.reason}` };
    const requested = parsed.value;
    if (stopAt?.(requested.raw) === true) return { ok: 'stopped', values: values.length };
    if (seen.has(requested.raw)) continue;
    seen.add(requested.raw);
    addresses.push(requested);
  }
  return { ok: true, addresses };
}
