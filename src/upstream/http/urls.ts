/**
 * An HTTP upstream's URLs: a request's URL made from the upstream's base URL, the length
 * of a walletStates request line a proxy has to hold, and what of the base URL must never
 * show in a message.
 */

import { JETTON_WALLETS_API_PATH } from '../../domain/jettons.js';

export const WALLET_STATES_PATH = '/api/v3/walletStates';

/**
 * The request line of a walletStates request of `count` addresses to the upstream at
 * `baseUrl`, in bytes: `GET <path>/api/v3/walletStates?address=<48 characters a
 * compact form, comma-separated> HTTP/1.1`, what a proxy's header buffer has to hold.
 */
export function walletStatesRequestLineBytes(baseUrl: string, count: number): number {
  const base = new URL(baseUrl);
  // The base URL's own query (a key some providers take there) goes before the addresses, `&`-joined.
  return `GET ${base.pathname.replace(/\/+$/, '')}${WALLET_STATES_PATH}?address=`.length + base.search.length + 49 * count - 1 + ' HTTP/1.1\r\n'.length;
}

/**
 * The URL of a request: the upstream's base URL with the API path appended to its path, and
 * the request's query after the base's own (`https://host/<key>/?api_key=<key>` works as a
 * base).
 */
export function requestUrl(baseUrl: string, path: string, search: string | undefined): URL {
  const url = new URL(baseUrl);
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  url.search = [url.search.slice(1), search ?? ''].filter((part) => part !== '').join('&');
  url.hash = '';
  return url;
}

/**
 * Hides what may be secret in an upstream's URL (its path segments and query values, as
 * shownUrl hides them) wherever it shows up in a message: an error page may echo the URL
 * it was asked for.
 */
export function urlScrubber(baseUrl: string): (text: string) => string {
  const url = new URL(baseUrl);
  const parts = [...url.pathname.split('/'), ...url.searchParams.values(), url.username, url.password]
    .flatMap((part) => [part, safeDecode(part)])
    .filter((part) => part.length >= 4);
  const secrets = [...new Set(parts)].sort((a, b) => b.length - a.length);
  return secrets.length === 0 ? (text) => text : (text) => secrets.reduce((scrubbed, secret) => scrubbed.replaceAll(secret, '…'), text);
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * The request line of a jetton wallets request for `count` owners to the upstream at
 * `baseUrl`, in bytes: `GET <path>/api/v3/jetton/wallets?jetton_address=<48>&limit=1000&offset=<up to 7 digits>`
 * then `&owner_address=<48>` per owner (the indexer takes the parameter repeated).
 */
export function jettonWalletsRequestLineBytes(baseUrl: string, count: number): number {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const fixed = `GET ${prefix}${JETTON_WALLETS_API_PATH}?jetton_address=${'x'.repeat(48)}&limit=1000&offset=1000000`.length + base.search.length;
  return fixed + 63 * count + ' HTTP/1.1\r\n'.length;
}
