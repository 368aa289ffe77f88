import { TonParseError } from './errors.js';
import { loadAccount, type Cell, type Slice } from '@ton/core';
import type { ServedWalletState } from '../domain/wallet-state.js';
import type { ShardAccountRecord } from './shard-accounts.js';

/**
 * An account as toncenter's indexer turns it into a walletStates row
 * (toncenter/ton-indexer: `ton-index-go/index/parse/wallet_parse.go`,
 * `tondb-scanner/src/DataParser.cpp`): status, balance and extra currencies from the
 * account, the code hash, the last transaction from the ShardAccount (not the account's own
 * last_trans_lt, which is that transaction's end lt), and the wallet fields read from the
 * data cell of known wallet code only.
 */

type DataLayout = 'seqno' | 'v3' | 'v5';

/** Code hash (base64) → wallet_type and how the indexer reads its data. Highload wallets are not wallets. */
export const WALLET_CODE_HASHES: ReadonlyMap<string, { readonly type: string; readonly layout: DataLayout }> = new Map([
  ['oM/CxIruFqJx8s/AtzgtgXVs7LEBfQd/qqs7tgL2how=', { type: 'wallet v1 r1', layout: 'seqno' }],
  ['1JAvzJ+tdGmPqONTIgpo2g3PcuMryy657gQhfBfTBiw=', { type: 'wallet v1 r2', layout: 'seqno' }],
  ['WHzHie/xyE9G7DeX5F/ICaFP9a4k8eDHpqmcydyQYf8=', { type: 'wallet v1 r3', layout: 'seqno' }],
  ['XJpeaMEI4YchoHxC+ZVr+zmtd+xtYktgxXbsiO7mUyk=', { type: 'wallet v2 r1', layout: 'seqno' }],
  ['/pUw0yQ4Uwg+8u8LTCkIwKv2+hwx6iQ6rKpb+MfXU/E=', { type: 'wallet v2 r2', layout: 'seqno' }],
  ['thBBpYp5gLlG6PueGY48kE0keZ/6NldOpCUcQaVm9YE=', { type: 'wallet v3 r1', layout: 'v3' }],
  ['hNr6RJ+Ypph3ibojI1gHK8D3bcRSQAKl0JGLmnXS1Zk=', { type: 'wallet v3 r2', layout: 'v3' }],
  ['ZN1UgFUixb6KnbWc6gEFzPDQh4bKeb64y3nogKjXMi0=', { type: 'wallet v4 r1', layout: 'v3' }],
  ['/rX/aCDi/w2Ug+fg1iyBfYRniftK5YDIeIZtlZ2r1cA=', { type: 'wallet v4 r2', layout: 'v3' }],
  // The indexer reads v5 beta as v5r1 (bit, u32, u32), though the contract's own layout differs.
  ['89fKU0k97trCizgZhqhJQDy6w9LFhHea8IEGWvCsS5M=', { type: 'wallet v5 beta', layout: 'v5' }],
  ['IINLe3KxEhR+Gy+0V7hOdNGjDwT3N9T2KmaOlVLSty8=', { type: 'wallet v5 r1', layout: 'v5' }],
]);

interface WalletFields {
  readonly seqno: number;
  readonly wallet_id: number | null;
  readonly is_signature_allowed: boolean | null;
}

function readWalletData(layout: DataLayout, s: Slice): WalletFields {
  switch (layout) {
    case 'seqno':
      return { seqno: s.loadUint(32), wallet_id: null, is_signature_allowed: null };
    case 'v3':
      return { seqno: s.loadUint(32), wallet_id: s.loadUint(32), is_signature_allowed: null };
    case 'v5': {
      const isSignatureAllowed = s.loadBit();
      return { is_signature_allowed: isSignatureAllowed, seqno: s.loadUint(32), wallet_id: s.loadUint(32) };
    }
  }
}

/**
 * The walletStates row of one account, or null when the account does not exist (no
 * `Account`, or `account_none`), as toncenter leaves such an address out.
 * `raw` is the canonical raw key; `accountState` the Account cell of the answer's `state`.
 */
export function walletStateOfAccount(raw: string, accountState: Cell | undefined, shardAccount: ShardAccountRecord | null): ServedWalletState | null {
  if (accountState === undefined) return null;
  const s = accountState.beginParse();
  if (s.remainingBits === 0 || !s.loadBit()) return null;
  const account = loadAccount(s);
  if (account.addr.toRawString().toUpperCase() !== raw)
    throw new TonParseError('bad_data', `the account state is of ${account.addr.toRawString()}, not of ${raw}`);
  const { state, balance } = account.storage;
  const extra: Record<string, string> = {};
  if (balance.other) for (const [id, amount] of balance.other) extra[String(id)] = amount.toString();
  const code = state.type === 'active' ? (state.state.code ?? null) : null;
  const data = state.type === 'active' ? (state.state.data ?? null) : null;
  const codeHash = code === null ? null : code.hash().toString('base64');
  const known = codeHash === null ? undefined : WALLET_CODE_HASHES.get(codeHash);
  let wallet: WalletFields | null = null;
  if (known !== undefined && data !== null) {
    try {
      wallet = readWalletData(known.layout, data.beginParse());
    } catch {
      // Data too short for its code: the indexer reports no wallet fields then.
      wallet = null;
    }
  }
  const hasTransaction = shardAccount !== null && (shardAccount.lastTransLt !== 0n || shardAccount.lastTransHash.some((b) => b !== 0));
  return {
    address: raw,
    balance: balance.coins.toString(),
    code_hash: codeHash,
    extra_currencies: extra,
    is_signature_allowed: wallet?.is_signature_allowed ?? null,
    is_wallet: known !== undefined && wallet !== null,
    last_transaction_hash: hasTransaction ? shardAccount.lastTransHash.toString('base64') : null,
    last_transaction_lt: hasTransaction ? shardAccount.lastTransLt.toString() : null,
    seqno: wallet?.seqno ?? null,
    status: state.type,
    wallet_id: wallet?.wallet_id ?? null,
    wallet_type: wallet === null ? null : (known?.type ?? null),
  };
}
