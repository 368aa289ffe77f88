/**
 * Jettons (TEP-74 tokens) on the watchlist: what the config names, what an upstream
 * answers, and how base units become jetton units, exactly.
 */

/** One jetton the config names: `jettons: { USDT: { master, decimals } }`. */
export interface JettonSettings {
  /** The operator's name for it: the `jetton` label. */
  readonly name: string;
  /** The jetton master, canonical raw key. */
  readonly master: string;
  /** The master as written in the config (for check-config and ton_jetton_info). */
  readonly masterAsWritten: string;
  /** Digits after the point: base units per jetton unit are 10^decimals. 0..255; null: read from the master's metadata. */
  readonly decimals: number | null;
}

/** One row of `GET /api/v3/jetton/wallets`: a jetton wallet, its owner and balance. */
export interface JettonWalletRow {
  /** The jetton wallet, canonical raw key. */
  readonly address: string;
  /** Decimal string of base units; may exceed 2^53. */
  readonly balance: string;
  /** The owner, canonical raw key. */
  readonly owner: string;
  /** The master, canonical raw key. */
  readonly jetton: string;
  readonly last_transaction_lt: string;
  readonly code_hash: string | null;
  readonly data_hash: string | null;
}

/** One page of jetton wallets for some owners of one master. */
export interface JettonWalletsAnswer {
  readonly jetton_wallets: readonly JettonWalletRow[];
  readonly address_book: Readonly<Record<string, { readonly user_friendly: string; readonly domain: string | null }>>;
}

/** The indexer's path for jetton wallets. */
export const JETTON_WALLETS_API_PATH = '/api/v3/jetton/wallets';

/** Rows per page the indexer allows at most (`limit` above is an error). */
export const JETTON_PAGE_LIMIT = 1000;

/** What tonwatch knows of one watched owner's balance of one jetton. */
export interface JettonRecord {
  /** The owner's jetton wallet; null when the upstream has none for it (balance 0). */
  readonly wallet: string | null;
  /** Decimal string of base units, exactly as the upstream sent it ("0" without a wallet). */
  readonly balance: string;
  readonly lastTransactionLt: string | null;
  readonly codeHash: string | null;
  readonly dataHash: string | null;
  /** When the answer arrived, process clock ms. */
  readonly fetchedAt: number;
  readonly upstream: string;
}

/** Every watched owner's record, by jetton name then owner raw key. */
export interface JettonsSnapshot {
  readonly jettons: ReadonlyMap<string, ReadonlyMap<string, JettonRecord>>;
  /** Decimals read from masters' metadata (for jettons the config gives none), by master. */
  readonly decimals?: ReadonlyMap<string, number> | undefined;
  /** The master each jetton name's records belong to (absent in files written before it was kept). */
  readonly masters?: ReadonlyMap<string, string> | undefined;
  /** When the newest answer in it arrived, process clock ms. */
  readonly fetchedAt: number;
}

const UNITS = /^\d+$/;

/**
 * A balance in base units as a decimal string in jetton units: `1234567` with 6 decimals
 * is `1.234567`; trailing zeros of the fraction and a point with nothing after it are left
 * out. String arithmetic only: a balance may exceed 2^53 and must never pass a float.
 */
export function jettonUnits(baseUnits: string, decimals: number): string {
  if (!UNITS.test(baseUnits)) throw new Error(`not a balance in base units: "${baseUnits}"`);
  const digits = baseUnits.replace(/^0+(?=\d)/, '');
  if (decimals === 0) return digits;
  const padded = digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, padded.length - decimals);
  const fraction = padded.slice(padded.length - decimals).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** TEP-64: a jetton whose metadata names no decimals has 9. */
export const DEFAULT_JETTON_DECIMALS = 9;

/**
 * The decimals a jetton's metadata gives (TEP-64), or why they cannot be read: `decimals`
 * as text or a number, 0..255; none at all means 9; off-chain metadata (only a `uri`, whose
 * JSON tonwatch does not fetch) cannot be read, and neither can a value out of range.
 */
export function decimalsOfMetadata(content: Readonly<Record<string, unknown>>): { ok: true; decimals: number } | { ok: false; reason: string } {
  const value = content['decimals'];
  if (value === undefined || value === null) {
    if (typeof content['uri'] === 'string')
      return { ok: false, reason: `its metadata is off-chain (${content['uri'].slice(0, 100)}): set decimals in the config` };
    return { ok: true, decimals: DEFAULT_JETTON_DECIMALS };
  }
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d{1,3}$/.test(text) || Number(text) > 255)
    return { ok: false, reason: `its metadata gives decimals ${JSON.stringify(value).slice(0, 40)}, not 0..255` };
  return { ok: true, decimals: Number(text) };
}

/** The decimals in force for a jetton: the config's, else those read from its master; null while unknown. */
export function decimalsOf(jetton: JettonSettings, snapshot: JettonsSnapshot | null): number | null {
  return jetton.decimals ?? snapshot?.decimals?.get(jetton.master) ?? null;
}

/**
 * The part of a snapshot that still belongs to the configured jettons: a name whose master
 * changed in the config loses its records (they are another token's balances) until the
 * next cycle brings the new master's; the same object when nothing changed.
 */
export function jettonsSnapshotFor(snapshot: JettonsSnapshot | null, jettons: readonly JettonSettings[]): JettonsSnapshot | null {
  if (snapshot?.masters === undefined) return snapshot;
  const masters = snapshot.masters;
  const moved = jettons.filter((j) => masters.has(j.name) && masters.get(j.name) !== j.master).map((j) => j.name);
  if (moved.length === 0) return snapshot;
  const keep = <T>(map: ReadonlyMap<string, T>) => new Map([...map].filter(([name]) => !moved.includes(name)));
  return { ...snapshot, jettons: keep(snapshot.jettons), masters: keep(masters) };
}
