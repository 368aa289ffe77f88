import type { Interning } from '../../domain/interning.js';
import type { JettonRecord } from '../../domain/jettons.js';
import { base64HashAt, hexAt, pushBase64Hash, pushUnsigned, pushUpperHex, unsignedAt } from '../../domain/packed-bytes.js';
import { isCanonicalRaw } from '../../ton/address.js';

/**
 * A jetton record held near its information, as wallet states are (accounts/packed-state.ts):
 * what the records of one master share (the wallet code's hash, the upstream, the jetton
 * wallet's workchain) in one object kept once, and the jetton wallet's address, the balance
 * (up to 2^128: jetton amounts are VarUInteger 16), the logical time and the data hash as 89
 * bytes of one one-byte string. About 140 bytes a record against 300 as parsed. Every field
 * reads back exactly as the upstream sent it; a record that would not is held as it came.
 */

interface Shared {
  readonly codeHash: string | null;
  readonly upstream: string;
  /** The jetton wallet's workchain as its raw form writes it; null: no jetton wallet. */
  readonly workchain: string | null;
}

const FLAGS = 0;
const WALLET_AT = 1;
const BALANCE_AT = 33;
const LT_AT = 49;
const DATA_HASH_AT = 57;
const HAS_LT = 1;
const HAS_DATA_HASH = 2;
const ZERO_HASH: readonly number[] = Array.from({ length: 32 }, () => 0);
const ZERO_LT: readonly number[] = Array.from({ length: 8 }, () => 0);

class PackedJettonRecord implements JettonRecord {
  readonly fetchedAt: number;
  /** @internal the shared part */
  readonly k: Shared;
  /** @internal flags (1 byte), wallet (32), balance (16), lt (8), data hash (32) */
  readonly t: string;
  constructor(fetchedAt: number, shared: Shared, tail: string) {
    this.fetchedAt = fetchedAt;
    this.k = shared;
    this.t = tail;
  }
  get wallet(): string | null {
    return this.k.workchain === null ? null : `${this.k.workchain}:${hexAt(this.t, WALLET_AT, 32)}`;
  }
  get balance(): string {
    return unsignedAt(this.t, BALANCE_AT, 16);
  }
  get lastTransactionLt(): string | null {
    return this.t.charCodeAt(FLAGS) & HAS_LT ? unsignedAt(this.t, LT_AT, 8) : null;
  }
  get codeHash(): string | null {
    return this.k.codeHash;
  }
  get dataHash(): string | null {
    return this.t.charCodeAt(FLAGS) & HAS_DATA_HASH ? base64HashAt(this.t, DATA_HASH_AT) : null;
  }
  get upstream(): string {
    return this.k.upstream;
  }
  toJSON(): JettonRecord {
    return plainJettonRecord(this);
  }
}

/** Whether a record is held packed. */
export function isPackedJettonRecord(record: unknown): record is JettonRecord {
  return record instanceof PackedJettonRecord;
}

/** The seven fields of any record as a plain object. */
export function plainJettonRecord(r: JettonRecord): JettonRecord {
  const { wallet, balance, lastTransactionLt, codeHash, dataHash, fetchedAt, upstream } = r;
  return { wallet, balance, lastTransactionLt, codeHash, dataHash, fetchedAt, upstream };
}

/**
 * The record packed, its shared part kept once through `interning` (past its limit, a record
 * keeps its own); the record as it is when a field would not read back the same.
 */
export function packedJettonRecord(record: JettonRecord, interning: Interning): JettonRecord {
  if (record instanceof PackedJettonRecord) return record;
  const { wallet, lastTransactionLt: lt, dataHash } = record;
  const bytes = [(lt === null ? 0 : HAS_LT) | (dataHash === null ? 0 : HAS_DATA_HASH)];
  let workchain: string | null = null;
  if (wallet === null) bytes.push(...ZERO_HASH);
  else if (!isCanonicalRaw(wallet) || !pushUpperHex(bytes, wallet.slice(wallet.length - 64))) return record;
  else workchain = wallet.slice(0, wallet.length - 65);
  if (!pushUnsigned(bytes, record.balance, 16)) return record;
  if (lt === null) bytes.push(...ZERO_LT);
  else if (!pushUnsigned(bytes, lt, 8)) return record;
  if (dataHash === null) bytes.push(...ZERO_HASH);
  else if (!pushBase64Hash(bytes, dataHash)) return record;
  const shared: Shared = { codeHash: record.codeHash, upstream: record.upstream, workchain };
  const key = `jetton\0${JSON.stringify(shared)}`;
  return new PackedJettonRecord(record.fetchedAt, interning.shared(key, () => shared) ?? shared, String.fromCharCode(...bytes));
}
