import type { WatchedWallet } from '../../domain/config.js';
import { sameFriendly, userFriendlyOf, type HeldBook } from '../../accounts/address-book.js';
import type { ServedWalletState } from '../../domain/wallet-state.js';
import { sameCurrencies } from '../../accounts/same-state.js';
import type { LineWriter } from '../../metrics/line-writer.js';
import type { MetricFamily } from '../../metrics/catalogue.js';
import { WALLET_METRICS } from './families.js';

/**
 * The per-wallet families and how one wallet's lines of each are written, straight into
 * a LineWriter; wallet-series.ts puts them together in blocks and caches them.
 */

const ZEROS = Array.from({ length: 10 }, (_, n) => '0'.repeat(n));

/** Nanotons (decimal string) → TON as an exact decimal: "1500000000" → "1.5". */
export function writeTons(out: LineWriter, nanotons: string): void {
  // Hot path (once per wallet per poll): index arithmetic, no intermediate strings.
  const length = nanotons.length;
  let start = 0;
  while (start < length - 1 && nanotons.charCodeAt(start) === 48) start += 1;
  let end = length;
  if (length - start <= 9) {
    if (length - start === 1 && nanotons.charCodeAt(start) === 48) {
      out.text('0');
      return;
    }
    while (nanotons.charCodeAt(end - 1) === 48) end -= 1;
    out.text('0.');
    out.text(ZEROS[9 - (length - start)] ?? '');
    out.textRange(nanotons, start, end);
    return;
  }
  const point = length - 9;
  while (end > point && nanotons.charCodeAt(end - 1) === 48) end -= 1;
  out.textRange(nanotons, start, point);
  if (end > point) {
    out.text('.');
    out.textRange(nanotons, point, end);
  }
}

/** Writes `address="…",name="…"` plus the entry's own labels (sorted), escaped. */
export function writeBaseLabels(out: LineWriter, wallet: WatchedWallet): void {
  out.text('address="');
  out.ascii(wallet.raw);
  out.text('",name="');
  out.labelValue(wallet.name);
  out.text('"');
  const names = Object.keys(wallet.labels);
  if (names.length === 0) return;
  for (const name of names.sort()) {
    out.text(',');
    out.text(name);
    out.text('="');
    out.labelValue(wallet.labels[name] ?? '');
    out.text('"');
  }
}

/** Marks a wallet with no exported data (no record, or stale). */
export const ABSENT = Symbol('absent');
/** Marks a wallet the upstream does not know. */
export const UNKNOWN = Symbol('unknown');

export type WalletData = ServedWalletState | typeof ABSENT | typeof UNKNOWN;

/** What one family's lines are written from, for one wallet. */
export interface LineInput {
  readonly wallet: WatchedWallet;
  /** The wallet's base label pairs, escaped and encoded: `address="…",name="…",…`. */
  readonly base: Buffer;
  readonly data: WalletData;
  /** The record's address book entry; the record itself is not kept (a block outlives its snapshot). */
  readonly addressBook: HeldBook | null;
  readonly testnet: boolean;
}

/** A family and how one wallet's lines of it are written (nothing when it has none). */
export interface FamilyWriter {
  readonly family: MetricFamily;
  /**
   * Whether this wallet's lines come out the same from both inputs (of the same watched
   * wallet): then a block of them rendered before can be kept.
   */
  same(a: LineInput, b: LineInput): boolean;
  write(out: LineWriter, input: LineInput): void;
}

/** Both without data alike, or both with data equal in what `equal` looks at. */
function sameData(a: WalletData, b: WalletData, equal: (x: ServedWalletState, y: ServedWalletState) => boolean): boolean {
  if (a === b) return true;
  return typeof a !== 'symbol' && typeof b !== 'symbol' && equal(a, b);
}

/** What the user_friendly label is computed from (snapshot/address-book.ts). */
function sameFriendlySource(a: LineInput, b: LineInput): boolean {
  const bookA = a.addressBook;
  const bookB = b.addressBook;
  if (bookA !== null || bookB !== null) return sameFriendly(bookA, bookB, a.wallet.raw);
  return sameData(a.data, b.data, (x, y) => x.is_wallet === y.is_wallet && x.status === y.status);
}

/** `name{` of every family, encoded once. */
const OPENINGS = new Map(Object.values(WALLET_METRICS).map((family) => [family, Buffer.from(`${family.name}{`)]));

/** Writes `name{base` ; the caller finishes the label set and the value. */
function open(out: LineWriter, family: MetricFamily, base: Buffer): void {
  out.bytes(OPENINGS.get(family) ?? Buffer.from(`${family.name}{`));
  out.bytes(base);
}

type SampledField = 'balance' | 'seqno' | 'last_transaction_lt';

/** A family with one sample per wallet whose state has `field`: `name{base} value`. */
function stateSample<K extends SampledField>(
  family: MetricFamily,
  field: K,
  value: (out: LineWriter, fieldValue: NonNullable<ServedWalletState[K]>) => void,
): FamilyWriter {
  return {
    family,
    same: (a, b) => sameData(a.data, b.data, (x, y) => x[field] === y[field]),
    write(out, { base, data }) {
      if (typeof data === 'symbol') return;
      const fieldValue = data[field];
      if (fieldValue === null) return;
      open(out, family, base);
      out.text('} ');
      value(out, fieldValue);
      out.text('\n');
    },
  };
}

/** In output order: min balance (config, shown even without data) first. */
export const WALLET_FAMILIES: readonly FamilyWriter[] = [
  {
    family: WALLET_METRICS.walletMinBalanceTons,
    // Configuration only: the same for the same watched wallet.
    same: () => true,
    write(out, { wallet, base }) {
      if (wallet.minBalanceTons === undefined) return;
      open(out, this.family, base);
      out.text('} ');
      out.integer(wallet.minBalanceTons);
      out.text('\n');
    },
  },
  {
    family: WALLET_METRICS.walletStatus,
    same: (a, b) => sameData(a.data, b.data, (x, y) => x.status === y.status),
    write(out, { base, data }) {
      if (data === ABSENT) return;
      open(out, this.family, base);
      out.text(',status="');
      out.repeatedLabelValue(data === UNKNOWN ? 'unknown' : data.status);
      out.text('"} 1\n');
    },
  },
  stateSample(WALLET_METRICS.walletBalanceTons, 'balance', writeTons),
  stateSample(WALLET_METRICS.walletSeqno, 'seqno', (out, seqno) => out.integer(seqno)),
  stateSample(WALLET_METRICS.walletLastTransactionLt, 'last_transaction_lt', (out, lt) => out.text(lt)),
  {
    family: WALLET_METRICS.walletInfo,
    same: (a, b) => sameData(a.data, b.data, (x, y) => x.wallet_type === y.wallet_type && x.wallet_id === y.wallet_id) && sameFriendlySource(a, b),
    write(out, { wallet, base, data, addressBook, testnet }) {
      if (typeof data === 'symbol') return;
      open(out, this.family, base);
      out.text(',user_friendly="');
      out.labelValue(userFriendlyOf(addressBook, data, wallet.raw, testnet) ?? '');
      out.text('",wallet_type="');
      out.repeatedLabelValue(data.wallet_type ?? '');
      out.text('",wallet_id="');
      if (data.wallet_id !== null) out.integer(data.wallet_id);
      out.text('"} 1\n');
    },
  },
  {
    family: WALLET_METRICS.walletExtraCurrencyBalance,
    same: (a, b) => sameData(a.data, b.data, (x, y) => sameCurrencies(x.extra_currencies, y.extra_currencies)),
    write(out, { base, data }) {
      if (typeof data === 'symbol') return;
      for (const currency in data.extra_currencies) {
        open(out, this.family, base);
        out.text(',currency="');
        out.labelValue(currency);
        out.text('"} ');
        out.text(data.extra_currencies[currency] ?? '');
        out.text('\n');
      }
    },
  },
];
