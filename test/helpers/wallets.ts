import type { WatchedWallet } from '../../src/domain/config.js';
import type { ServedWalletState } from '../../src/domain/wallet-state.js';
import type { WalletRecord } from '../../src/accounts/types.js';
import type { WalletsSnapshot } from '../../src/features/wallets/types.js';
import { parseAddress } from '../../src/ton/address.js';
import type { Interning } from '../../src/domain/interning.js';
import { createStatePacker, type StateKind } from '../../src/accounts/packed-state.js';

export const ADDR = {
  a: '0:29023DEB1272494B112310754AAC7DD0660B68FCC40C3A693C97BD9ACDA5E563',
  b: '0:1111111111111111111111111111111111111111111111111111111111111111',
  c: '-1:3333333333333333333333333333333333333333333333333333333333333333',
};

export function watched(raw: string, extra: Partial<WatchedWallet> = {}): WatchedWallet {
  const parsed = parseAddress(raw);
  if (!parsed.ok) throw new Error(parsed.reason);
  return { raw: parsed.value.raw, name: raw.slice(0, 6), labels: {}, minBalanceTons: undefined, ...extra };
}

export function walletState(raw: string, extra: Partial<ServedWalletState> = {}): ServedWalletState {
  return {
    address: raw,
    balance: '1500000000',
    code_hash: 'IINLe3KxEhR+Gy+0V7hOdNGjDwT3N9T2KmaOlVLSty8=',
    extra_currencies: {},
    is_signature_allowed: null,
    is_wallet: true,
    last_transaction_hash: 'T65CEggx0i8bVOQmpjt/AgHYpn/MZ0yv7ILIWB3JeZM=',
    last_transaction_lt: '50000000857100',
    seqno: 7,
    status: 'active',
    wallet_id: 698983191,
    wallet_type: 'wallet v4 r2',
    ...extra,
  };
}

export function record(raw: string, state: ServedWalletState | null, fetchedAt = 1_000_000, extra: Partial<WalletRecord> = {}): WalletRecord {
  return { raw, state, addressBook: null, metadata: undefined, fetchedAt, upstream: 'sim', ...extra };
}

export function walletsSnapshot(records: WalletRecord[], fetchedAt = 1_000_000): WalletsSnapshot {
  return { fetchedAt, wallets: new Map(records.map((r) => [r.raw, r])) };
}

/** One state packed as the poll packs it (a packer of its own). */
export function packedState(state: ServedWalletState, interning: Interning, kind?: StateKind): ServedWalletState {
  return createStatePacker(interning)(state, kind);
}
