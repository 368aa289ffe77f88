import { createHash } from 'node:crypto';
import { friendlyForm, parseAddress } from '../ton/address.js';
import type { Random } from './random.js';
import type { SimAccount } from './wallets.js';

/**
 * Simulated jettons for `GET /api/v3/jetton/wallets`, with the indexer's rules
 * (ton-index-go): `owner_address`, `jetton_address` and `address` repeated, several
 * `jetton_address` only with exactly one `owner_address` (else 422), `limit` default 100
 * and above 1000 an error (500), `offset` paging over rows sorted by owner then jetton, no
 * row for an owner without a jetton wallet, 414 past a URL length. Two masters: SIMUSD (6
 * decimals, a USD₮ look-alike held by two thirds of the wallets) and SIMBIG (9 decimals,
 * one holder's balance past 2^53 base units).
 */

export interface SimJetton {
  readonly symbol: string;
  readonly master: string;
  readonly decimals: number;
}

export interface SimJettonWallet {
  readonly address: string;
  readonly owner: string;
  readonly jetton: string;
  balance: bigint;
  lt: bigint;
}

export interface SimJettons {
  readonly jettons: readonly SimJetton[];
  step(): void;
  wallets(): readonly SimJettonWallet[];
  /** Sets one owner's balance of one master (base units); false when it holds no wallet of it. */
  setBalance(owner: string, master: string, balance: bigint): boolean;
  /** The master's get_wallet_address: where the owner's jetton wallet is, deployed or not; null for an account that is no master. */
  walletAddressOf(master: string, owner: string): string | null;
  /** The deployed jetton wallet at this address (get_wallet_data), if any. */
  walletAt(address: string): SimJettonWallet | undefined;
  answer(url: URL): { status: number; body: string };
  /** `GET /api/v3/jetton/masters?address=…`: each master with its on-chain metadata as the indexer parses it. */
  masters(url: URL): { status: number; body: string };
  /** A master's on-chain metadata (name, symbol, decimals) and total supply; undefined for an account that is no master. */
  master(address: string): { metadata: Record<string, string>; totalSupply: bigint } | undefined;
}

const WALLET_KINDS = new Set(['v4r2', 'v5r1', 'v3r2']);
const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex').toUpperCase();

export interface SimJettonsOptions {
  readonly random: Random;
  readonly seed: number;
  readonly accounts: readonly SimAccount[];
  readonly testnet: boolean;
  readonly maxUrlBytes: number;
}

/** A balance past 2^53 base units, held by SIMBIG's first holder. */
export const SIM_WHALE_BALANCE = 123_456_789_012_345_678_901_234n;

export function createSimJettons(options: SimJettonsOptions): SimJettons {
  const { random, seed } = options;
  const jettons: SimJetton[] = [
    // The same masters under every seed: configs (the demo's among them) name them.
    { symbol: 'SIMUSD', master: `0:${hashOf('tonwatch-sim:jetton-master:SIMUSD')}`, decimals: 6 },
    { symbol: 'SIMBIG', master: `0:${hashOf('tonwatch-sim:jetton-master:SIMBIG')}`, decimals: 9 },
  ];
  const walletAddress = (master: string, owner: string): string => `0:${hashOf(`${seed}:jetton-wallet:${master}:${owner}`)}`;
  const wallets = holdings(options, jettons as [SimJetton, SimJetton], walletAddress);
  const byOwner = new Map<string, SimJettonWallet[]>();
  for (const w of wallets) byOwner.set(w.owner, [...(byOwner.get(w.owner) ?? []), w]);
  /** The rows for these owners (all without), in order, masters and wallet addresses filtered. */
  const matching = (owners: readonly string[], masters: readonly string[], addresses: readonly string[]): SimJettonWallet[] => {
    const candidates = owners.length === 0 ? wallets : [...new Set(owners)].flatMap((o) => byOwner.get(o) ?? []).sort(byOrder);
    return candidates.filter((w) => (masters.length === 0 || masters.includes(w.jetton)) && (addresses.length === 0 || addresses.includes(w.address)));
  };
  const byAddress = new Map(wallets.map((w) => [w.address, w]));
  const master = (address: string) => {
    const jetton = jettons.find((j) => j.master === address);
    if (jetton === undefined) return undefined;
    const totalSupply = wallets.filter((w) => w.jetton === address).reduce((sum, w) => sum + w.balance, 0n);
    return { metadata: { name: `Simulated ${jetton.symbol}`, symbol: jetton.symbol, decimals: String(jetton.decimals) }, totalSupply };
  };
  return {
    master,
    masters: (url) => mastersAnswer(url, master),
    jettons,
    wallets: () => wallets,
    walletAddressOf: (master, owner) => (jettons.some((j) => j.master === master) ? walletAddress(master, owner) : null),
    walletAt: (address) => byAddress.get(address),
    step() {
      for (const w of wallets) {
        if (!random.chance(0.15)) continue;
        const unit = 10n ** BigInt(jettons.find((j) => j.master === w.jetton)?.decimals ?? 0);
        const amount = BigInt(random.int(1, 500)) * unit;
        if (random.chance(0.5)) w.balance += amount;
        else if (w.balance >= amount) w.balance -= amount;
        w.lt += BigInt(random.int(1_000, 90_000));
      }
    },
    setBalance(owner, master, balance) {
      const wallet = wallets.find((w) => w.owner === owner && w.jetton === master);
      if (wallet === undefined) return false;
      wallet.balance = balance;
      wallet.lt += 1000n;
      return true;
    },
    answer: (url) => walletsAnswer(url, matching, options),
  };
}

/** The indexer's order of jetton wallets: by owner, then master. */
const byOrder = (a: SimJettonWallet, b: SimJettonWallet): number => (a.owner === b.owner ? (a.jetton < b.jetton ? -1 : 1) : a.owner < b.owner ? -1 : 1);

/** Who holds what: two of three wallets SIMUSD (some at zero), one of five SIMBIG (its first holder the whale), in the indexer's order. */
function holdings(
  options: SimJettonsOptions,
  [usd, big]: readonly [SimJetton, SimJetton],
  walletAddress: (master: string, owner: string) => string,
): SimJettonWallet[] {
  const { random } = options;
  const wallets: SimJettonWallet[] = [];
  const add = (owner: string, jetton: SimJetton, balance: bigint): void => {
    wallets.push({ address: walletAddress(jetton.master, owner), owner, jetton: jetton.master, balance, lt: 60_000_000_000_000n });
  };
  options.accounts.forEach((account, i) => {
    if (!WALLET_KINDS.has(account.kind)) return;
    if (i % 3 !== 2) add(account.raw, usd, i % 11 === 0 ? 0n : BigInt(random.int(50, 2_000_000)) * 1_000_000n + BigInt(random.int(0, 999_999)));
    const first = !wallets.some((w) => w.jetton === big.master);
    if (i % 5 === 0) add(account.raw, big, first ? SIM_WHALE_BALANCE : BigInt(random.int(1, 10_000)) * 1_000_000_000n);
  });
  // The order never changes: sorted once.
  return wallets.sort(byOrder);
}

/** /api/v3/jetton/masters: the masters asked for that exist. */
function mastersAnswer(
  url: URL,
  master: (address: string) => { metadata: Record<string, string>; totalSupply: bigint } | undefined,
): { status: number; body: string } {
  const rows = url.searchParams.getAll('address').flatMap((text) => {
    const parsed = parseAddress(text);
    const found = parsed.ok ? master(parsed.value.raw) : undefined;
    if (!parsed.ok || found === undefined) return [];
    return [
      {
        address: parsed.value.raw,
        total_supply: found.totalSupply.toString(),
        mintable: true,
        admin_address: null,
        jetton_content: found.metadata,
        jetton_wallet_code_hash: createHash('sha256').update(`jetton-wallet-code:${parsed.value.raw}`).digest('base64'),
        code_hash: createHash('sha256').update('jetton-master-code').digest('base64'),
        data_hash: createHash('sha256').update(`jetton-master-data:${parsed.value.raw}`).digest('base64'),
        last_transaction_lt: '60000000000000',
      },
    ];
  });
  return { status: 200, body: JSON.stringify({ jetton_masters: rows, address_book: {}, metadata: {} }) };
}

/** /api/v3/jetton/wallets as the indexer answers: its validation, its limits, its address book. */
function walletsAnswer(
  url: URL,
  matching: (owners: readonly string[], masters: readonly string[], addresses: readonly string[]) => SimJettonWallet[],
  options: SimJettonsOptions,
): { status: number; body: string } {
  const error = (status: number, message: string) => ({ status, body: JSON.stringify({ error: message }) });
  const friendly = (raw: string, bounceable: boolean) => ({ user_friendly: friendlyForm(raw, { bounceable, testnet: options.testnet }), domain: null });
  if (url.pathname.length + url.search.length > options.maxUrlBytes) {
    return { status: 414, body: '<html><head><title>414 Request-URI Too Large</title></head><body><h1>414 Request-URI Too Large</h1></body></html>' };
  }
  const read = (name: string): string[] | string => {
    const out: string[] = [];
    for (const value of url.searchParams.getAll(name)) {
      const parsed = parseAddress(value);
      if (!parsed.ok) return `failed to parse ${name} ${value}: ${parsed.reason}`;
      out.push(parsed.value.raw);
    }
    return out;
  };
  const owners = read('owner_address');
  const masters = read('jetton_address');
  const addresses = read('address');
  for (const list of [owners, masters, addresses]) if (typeof list === 'string') return error(422, list);
  const [o, m, a] = [owners, masters, addresses] as [string[], string[], string[]];
  if (m.length > 1 && o.length !== 1) return error(422, 'jetton_address: only one value is allowed unless exactly one owner_address is given');
  const limit = url.searchParams.has('limit') ? Number(url.searchParams.get('limit')) : 100;
  const offset = Number(url.searchParams.get('offset') ?? 0);
  if (!Number.isInteger(limit) || limit < 0 || !Number.isInteger(offset) || offset < 0) return error(422, 'limit and offset must be integers');
  if (limit > 1000) return error(500, `limit is not allowed: ${limit} > 1000`);
  const rows = matching(o, m, a).slice(offset, offset + (limit === 0 ? 100 : limit));
  const addressBook: Record<string, unknown> = {};
  for (const w of rows) {
    addressBook[w.address] = friendly(w.address, true);
    addressBook[w.owner] = friendly(w.owner, false);
    addressBook[w.jetton] = friendly(w.jetton, true);
  }
  const body = rows.map((w) => ({
    address: w.address,
    balance: w.balance.toString(),
    owner: w.owner,
    jetton: w.jetton,
    last_transaction_lt: w.lt.toString(),
    code_hash: createHash('sha256').update(`jetton-wallet-code:${w.jetton}`).digest('base64'),
    data_hash: createHash('sha256').update(`jetton-wallet-data:${w.address}:${w.balance}`).digest('base64'),
  }));
  return { status: 200, body: JSON.stringify({ jetton_wallets: body, address_book: addressBook, metadata: {} }) };
}
