import { isDeepStrictEqual } from 'node:util';
import { isCanonicalRaw, parseAddress } from '../ton/address.js';
import type { AddressBookEntry, ServedWalletState } from '../domain/wallet-state.js';
import type { WalletRecord } from './types.js';
import { derivedStill, heldBook, isDerivedBook, type HeldBook } from './address-book.js';
import { isOfKind, sameAddressBookEntry, sameState } from './same-state.js';
import { createStatePacker, packedKind, type StatePacker, type StateKind } from './packed-state.js';
import type { WalletStatesAnswer } from '../domain/upstream.js';
import type { Interning } from '../domain/interning.js';

/** The canonical key of an address as an upstream printed it; null when unreadable. */
export function rawKeyOf(address: string): string | null {
  if (isCanonicalRaw(address)) return address; // the common case
  const parsed = parseAddress(address);
  return parsed.ok ? parsed.value.raw : null;
}

/**
 * Matches one walletStates answer to the addresses asked, by address (real upstreams
 * shuffle the order and leave unknown accounts out). Returns the records found and the
 * raw keys the answer left out. A state equal to the previous one keeps the previous
 * object, so everything derived from it (metric lines, served JSON) is reused; a wallet
 * whose record would say nothing new (state, address book entry, metadata and upstream
 * the same) keeps the previous record, its fetch time advanced in place (accounts/types.ts):
 * a steady cycle makes no new record.
 *
 * Never backwards: a state whose last transaction is older than that of a previous record
 * fetched at or after `meta.heldFrom` (one still served) is not taken; the previous record
 * stays, and `older` counts it. Changes nothing else.
 */
export function matchWalletAnswer(
  asked: readonly string[],
  answer: WalletStatesAnswer,
  meta: { fetchedAt: number; upstream: string; heldFrom?: number | undefined; interning?: Interning | undefined },
  previous?: ReadonlyMap<string, WalletRecord>,
  /** Where found records go; a new map when not given. */
  found: Map<string, WalletRecord> = new Map(),
): { found: Map<string, WalletRecord>; missing: string[]; older: number } {
  // Usually `{}` for plain wallets: then no lookups at all.
  const metadata = hasKeys(answer.metadata) ? answer.metadata : null;
  const heldFrom = meta.heldFrom ?? Infinity;
  let older = 0;
  const packing: Packing | undefined = meta.interning && { interning: meta.interning, pack: createStatePacker(meta.interning), kind: undefined };
  const take = (raw: string, decoded: ServedWalletState): void => {
    const key = decoded.address;
    const before = previous?.get(raw);
    if (before !== undefined && before.fetchedAt >= heldFrom && isOlderLt(decoded.last_transaction_lt, before.state?.last_transaction_lt)) {
      found.set(raw, before);
      older += 1;
      return;
    }
    const entry = answer.address_book[key] ?? (key === raw ? null : (answer.address_book[raw] ?? null));
    const next: WalletRecord = {
      raw,
      state: keptState(decoded, raw, before?.state, packing),
      addressBook: keptEntry(entry, raw, before?.addressBook, meta.interning),
      metadata: metadata === null ? undefined : keptMetadata(metadata[key] ?? metadata[raw], before?.metadata),
      fetchedAt: meta.fetchedAt,
      upstream: meta.upstream,
    };
    if (before === undefined || !sameButFetchTime(before, next)) {
      found.set(raw, next);
      return;
    }
    // Fetched again, the same: the record held, its fetch time advanced (types.ts).
    if (before.fetchedAt < next.fetchedAt) before.fetchedAt = next.fetchedAt;
    found.set(raw, before);
  };
  // First by the address as printed: toncenter prints the raw uppercase form, our key, so
  // the common case reads no address at all. The decoded state has the served shape.
  const asPrinted = new Map<string, ServedWalletState>();
  for (const state of answer.wallets) asPrinted.set(state.address, state);
  let matched = 0;
  const notFound: string[] = [];
  for (const raw of asked) {
    const decoded = asPrinted.get(raw);
    if (decoded === undefined) notFound.push(raw);
    else {
      // Counted once per account, should an address be asked twice (found grows only for
      // a key it did not hold: no second lookup).
      const before = found.size;
      take(raw, decoded);
      if (found.size > before) matched += 1;
    }
  }
  // Then, only if the answer has accounts left over, by the raw form each one names (an
  // upstream that prints lowercase or user-friendly forms).
  if (notFound.length === 0 || matched === asPrinted.size) return { found, missing: notFound, older };
  const byRaw = new Map<string, ServedWalletState>();
  for (const state of answer.wallets) {
    const raw = rawKeyOf(state.address);
    if (raw !== null) byRaw.set(raw, state);
  }
  const missing: string[] = [];
  for (const raw of notFound) {
    const decoded = byRaw.get(raw);
    if (decoded === undefined) missing.push(raw);
    else take(raw, decoded);
  }
  return { found, missing, older };
}

/** Whether logical time `next` is before `held` (decimal strings without leading zeros; null is unknown, never older). */
function isOlderLt(next: string | null, held: string | null | undefined): boolean {
  if (next === null || held === null || held === undefined) return false;
  return next.length < held.length || (next.length === held.length && next < held);
}

/**
 * How one answer's states are packed: with the process's interning, by one packer, and
 * the kind of the last state packed (the wallets of an answer share a few).
 */
interface Packing {
  readonly interning: Interning;
  readonly pack: StatePacker;
  kind: StateKind | undefined;
}

/**
 * The previous state when the new one says the same (kept by identity: everything derived
 * from it is reused). Otherwise the new one, served under the raw key (toncenter prints it
 * that way, anything else is rewritten), and holding the watchlist's own copy of it: the
 * parsed copy would be one more 67-character string per wallet for as long as it is kept.
 * Packed (packed-state.ts) when `packing` is given, as the daemon's snapshot holds it; its
 * kind found first among the previous state's and the last one packed, which costs less
 * than the interning's key.
 */
function keptState(decoded: ServedWalletState, raw: string, before: ServedWalletState | null | undefined, packing: Packing | undefined): ServedWalletState {
  const printedRaw = decoded.address === raw;
  const state = printedRaw ? decoded : { ...decoded, address: raw };
  if (before && sameState(before, state)) return before;
  if (packing !== undefined) {
    // Packed with the watchlist's copy of the address: no copy of the state for it.
    const packed = packing.pack(state, knownKind(state, before, packing.kind), raw);
    packing.kind = packedKind(packed) ?? packing.kind;
    if (packed !== state) return packed;
  }
  const own = printedRaw ? { ...decoded, address: raw } : state;
  if (packing === undefined) return own;
  const { interning } = packing;
  // Not packable (packed-state.ts): as it came, its repeated strings interned.
  const { code_hash: code, status, wallet_type: type } = own;
  return {
    ...own,
    code_hash: code === null ? null : interning.string(code),
    status: interning.string(status),
    wallet_type: type === null ? null : interning.string(type),
  };
}

/** The kind `state` is of, among the previous state's and the last one packed; undefined when neither. */
function knownKind(state: ServedWalletState, before: ServedWalletState | null | undefined, recent: StateKind | undefined): StateKind | undefined {
  const previous = before ? packedKind(before) : undefined;
  if (previous !== undefined && isOfKind(state, previous)) return previous;
  return recent !== undefined && isOfKind(state, recent) ? recent : undefined;
}

/**
 * The previous address book entry when the new one says the same (it rarely changes), so
 * the snapshot keeps one copy and the parsed one dies young. A new one has its lists of
 * names (`interfaces`: `["wallet_v4r2"]` on every wallet of that kind) shared.
 */
function keptEntry(next: AddressBookEntry | null, raw: string, before: HeldBook | null | undefined, interning: Interning | undefined): HeldBook | null {
  if (next === null) return null;
  if (before && (isDerivedBook(before) ? derivedStill(next, before, raw) : sameAddressBookEntry(next, before))) return before;
  if (interning === undefined) return next;
  // A derived entry is shared: the same one again is the previous object.
  const held = heldBook(next, raw, interning);
  return isDerivedBook(held) ? held : withSharedLists(next, interning);
}

/** The previous metadata entry when the new one is deeply equal (it rarely changes); else the new one. */
function keptMetadata(next: unknown, before: unknown): unknown {
  return before !== undefined && next !== undefined && isDeepStrictEqual(next, before) ? before : next;
}

function withSharedLists(entry: AddressBookEntry, interning: Interning | undefined): AddressBookEntry {
  if (interning === undefined) return entry;
  let copy: Record<string, unknown> | null = null;
  for (const key in entry) {
    const value = entry[key];
    if (!Array.isArray(value)) continue;
    const shared = interning.list(value);
    if (shared === value) continue;
    copy ??= { ...entry };
    copy[key] = shared;
  }
  return (copy as AddressBookEntry | null) ?? entry;
}

function hasKeys(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

/**
 * Whether two records of one wallet say the same but for their fetch times: the same state,
 * address book entry, metadata (each kept by identity while equal) and upstream.
 */
export function sameButFetchTime(a: WalletRecord, b: WalletRecord): boolean {
  return a.state === b.state && a.addressBook === b.addressBook && a.metadata === b.metadata && a.upstream === b.upstream;
}
