import { createHash } from 'node:crypto';
import { Address } from '@ton/core';
import { isCanonicalRaw, parseAddress, rawKey, userFriendly } from '../ton/address.js';
import { codeHashOf, type SimAccount, type SimAccountKind } from './account-cells.js';
import { perObject } from '../domain/per-object.js';
import type { Random } from './random.js';

/**
 * Simulated accounts for /api/v3/walletStates, with the real indexer's quirks: uppercase
 * raw addresses whatever form was asked, shuffled order, unknown accounts left out,
 * duplicates collapsed, silent truncation at 1000, 414 past a URL length, fields left out
 * for uninit/frozen/nonexist accounts, extra_currencies omitted when empty.
 */

export type { SimAccount, SimAccountKind } from './account-cells.js';

export interface SimWallets {
  step(): void;
  accounts(): readonly SimAccount[];
  /** The account with this canonical raw key. */
  account(raw: string): SimAccount | undefined;
  /** Answers one walletStates request URL. */
  answer(url: URL): { status: number; body: string };
}

/** The indexer's SQL `limit 1000`. */
export const INDEXER_ROW_LIMIT = 1000;

const KIND_CYCLE: readonly SimAccountKind[] = [
  'v4r2',
  'v4r2',
  'v5r1',
  'v4r2',
  'v3r2',
  'uninit',
  'v5r1',
  'contract',
  'v4r2',
  'frozen',
  'v4r2',
  'v5r1',
  'uninit',
  'v4r2',
  'contract',
  'v3r2',
  'v4r2',
  'v5r1',
  'v4r2',
  'nonexist',
];
const WALLET_TYPE: Partial<Record<SimAccountKind, string>> = { v4r2: 'wallet v4 r2', v5r1: 'wallet v5 r1', v3r2: 'wallet v3 r2' };
export const WALLET_ID: Partial<Record<SimAccountKind, number>> = { v4r2: 698983191, v5r1: 2147483409, v3r2: 698983191 };
/** The simulator's `count` accounts, their kinds in KIND_CYCLE's turn (the fourth in the masterchain), derived from the seed. */
function simAccounts(count: number, seed: number, random: Random): SimAccount[] {
  const accounts: SimAccount[] = [];
  for (let i = 0; i < count; i += 1) {
    const hash = createHash('sha256').update(`${seed}:account:${i}`).digest();
    const address = new Address(i === 3 ? -1 : 0, hash);
    const kind = KIND_CYCLE[i % KIND_CYCLE.length] ?? 'v4r2';
    accounts.push({
      raw: rawKey(address),
      address,
      kind,
      balance: kind === 'nonexist' ? 0n : BigInt(random.int(1, 5_000)) * 1_000_000_000n + BigInt(random.int(0, 999_999_999)),
      seqno: kind in WALLET_TYPE ? random.int(0, 5000) : 0,
      lt: 50_000_000_000_000n + BigInt(random.int(0, 1_000_000)),
      txHash: createHash('sha256').update(`${seed}:tx:${i}:0`).digest('base64'),
      extraCurrencies: i % 7 === 1 ? { '100': String(random.int(1, 10_000_000)) } : {},
    });
  }
  return accounts;
}

/** An account's row in a walletStates answer, with the fields the indexer leaves out for its kind left out. */
function walletState(a: SimAccount): Record<string, unknown> {
  const isWallet = a.kind in WALLET_TYPE;
  const status = a.kind === 'uninit' || a.kind === 'frozen' || a.kind === 'nonexist' ? a.kind : 'active';
  const body: Record<string, unknown> = { address: a.raw, is_wallet: isWallet, status };
  if (a.kind !== 'nonexist') body['balance'] = a.balance.toString();
  if (Object.keys(a.extraCurrencies).length > 0) body['extra_currencies'] = a.extraCurrencies;
  if (status === 'active') body['code_hash'] = codeHashOf(a.kind);
  if (isWallet) {
    body['wallet_type'] = WALLET_TYPE[a.kind];
    body['seqno'] = a.seqno;
    body['wallet_id'] = WALLET_ID[a.kind];
    if (a.kind === 'v5r1') body['is_signature_allowed'] = true;
  }
  body['last_transaction_hash'] = a.kind === 'nonexist' ? null : a.txHash;
  body['last_transaction_lt'] = a.kind === 'nonexist' ? null : a.lt.toString();
  return body;
}

/** The raw forms of a walletStates request's `address` values (repeated or comma-separated), or the indexer's complaint. */
function wantedAccounts(url: URL): Set<string> | string {
  const given = url.searchParams
    .getAll('address')
    .flatMap((v) => v.split(','))
    .filter((v) => v !== '');
  if (given.length === 0) return 'address of account is required';
  const wanted = new Set<string>();
  for (const text of given) {
    if (isCanonicalRaw(text)) {
      wanted.add(text);
      continue;
    }
    const parsed = parseAddress(text);
    if (!parsed.ok) return `failed to parse address ${text}: ${parsed.reason}`;
    wanted.add(parsed.value.raw);
  }
  return wanted;
}

export function createSimWallets(options: { random: Random; seed: number; count: number; testnet: boolean; maxUrlBytes: number }): SimWallets {
  const { random, seed } = options;
  const accounts = simAccounts(options.count, seed, random);
  const byRaw = new Map(accounts.map((a) => [a.raw, a]));
  /** An account's kind never changes, so neither does its user-friendly form. */
  const friendlyForms = perObject((a: SimAccount) =>
    userFriendly(a.address, { bounceable: !(a.kind in WALLET_TYPE) && a.kind !== 'uninit', testnet: options.testnet }),
  );

  const error = (status: number, message: string) => ({ status, body: JSON.stringify({ error: message }) });

  return {
    step() {
      for (const a of accounts) {
        if (a.kind === 'nonexist' || a.kind === 'frozen' || !random.chance(0.15)) continue;
        const incoming = random.chance(0.5) || a.kind === 'uninit';
        const amount = BigInt(random.int(1, 40)) * 100_000_000n;
        if (incoming) a.balance += amount;
        else if (a.balance > amount) {
          a.balance -= amount;
          if (a.kind in WALLET_TYPE) a.seqno += 1;
        }
        a.lt += BigInt(random.int(1_000, 90_000));
        a.txHash = createHash('sha256').update(`${seed}:tx:${a.raw}:${a.lt}`).digest('base64');
      }
    },
    accounts: () => accounts,
    account: (raw) => byRaw.get(raw),
    answer(url) {
      if (url.pathname.length + url.search.length > options.maxUrlBytes) {
        const html =
          '<html><head><title>414 Request-URI Too Large</title></head><body><center><h1>414 Request-URI Too Large</h1></center><hr><center>' +
          'nginx</center></body></html>';
        return { status: 414, body: html };
      }
      const wanted = wantedAccounts(url);
      if (typeof wanted === 'string') return error(422, wanted);
      const found = [...wanted].flatMap((raw) => byRaw.get(raw) ?? []).slice(0, INDEXER_ROW_LIMIT);
      for (let i = found.length - 1; i > 0; i -= 1) {
        const j = random.int(0, i);
        [found[i], found[j]] = [found[j] as SimAccount, found[i] as SimAccount];
      }
      const addressBook: Record<string, unknown> = {};
      const metadata: Record<string, unknown> = {};
      for (const a of found) {
        const friendly = friendlyForms(a);
        addressBook[a.raw] = { user_friendly: friendly, domain: null, interfaces: a.kind in WALLET_TYPE ? [`wallet_${a.kind}`] : [] };
        if (a.kind === 'contract') {
          metadata[a.raw] = { is_indexed: true, token_info: [{ type: 'jetton_masters', name: 'Simulated Jetton', symbol: 'SIMJ', valid: true }] };
        }
      }
      return { status: 200, body: JSON.stringify({ wallets: found.map(walletState), address_book: addressBook, metadata }) };
    },
  };
}
