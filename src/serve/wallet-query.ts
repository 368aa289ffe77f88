import { Address } from '@ton/core';
import { MAX_ADDRESSES_PER_REQUEST } from '../config/schema.js';
import { parseAddress } from '../ton/address.js';

/** One requested address, canonical; the Address object is made only when needed. */
export interface RequestedAddress {
  readonly raw: string;
  address(): Address;
}

export type WalletQuery =
  | { readonly ok: true; readonly addresses: readonly RequestedAddress[] }
  | { readonly ok: false; readonly error: string };

const RAW_UPPER = /^-?\d{1,3}:[0-9A-F]{64}$/;

/**
 * Reads `address` from a raw query string: repeated (`?address=A&address=B`) and/or
 * comma-separated, any accepted form, a `+` that arrived as a space read as `+`. At most
 * 1024 values, counted as given (duplicates included). Duplicates are returned once, in
 * first-seen order.
 */
export function parseWalletQuery(query: string): WalletQuery {
  const values: string[] = [];
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    if ((eq === -1 ? part : part.slice(0, eq)) !== 'address' || eq === -1) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
    } catch {
      return { ok: false, error: `invalid address: ${part.slice(eq + 1, eq + 120)} is not valid percent-encoding` };
    }
    for (const value of decoded.split(',')) {
      if (value.trim() === '') continue;
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
    let requested: RequestedAddress;
    if (RAW_UPPER.test(value)) {
      let made: Address | undefined;
      requested = { raw: value, address: () => (made ??= Address.parseRaw(value)) };
    } else {
      const parsed = parseAddress(value);
      if (!parsed.ok) return { ok: false, error: `invalid address ${value.slice(0, 100)}: ${parsed.reason}` };
      const { address } = parsed.value;
      requested = { raw: parsed.value.raw, address: () => address };
    }
    if (seen.has(requested.raw)) continue;
    seen.add(requested.raw);
    addresses.push(requested);
  }
  return { ok: true, addresses };
}
