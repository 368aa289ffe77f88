import type { JettonRecord } from '../../domain/jettons.js';
import { base64HashAt, bytesText, hexAt, putBase64Hash, putUnsigned, putUpperHex, unsignedAt } from '../../domain/packed-bytes.js';
import { isCanonicalRaw } from '../../ton/address.js';

/**
 * A jetton record held near its information, as wallet states are (accounts/packed-state.ts):
 * what the records of one answer share (when it arrived, the upstream, the wallet code's
 * hash, the jetton wallet's workchain) in one object kept once, and the jetton wallet's
 * address, the balance (up to 2^128: jetton amounts are VarUInteger 16), the logical time
 * and the data hash as 89 bytes of one one-byte string: 152 bytes a record against about
 * 230 as parsed. An owner without a jetton wallet holds nothing of its own: the records of
 * one answer that say "none" are one object. Every field reads back exactly as the upstream
 * sent it; a record that would not is held as it came.
 */

interface Shared {
  readonly fetchedAt: number;
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
/** The bytes of a packed record: flags, wallet, balance, logical time, data hash. */
const LENGTH = DATA_HASH_AT + 32;

class PackedJettonRecord implements JettonRecord {
  /** @internal the shared part */
  readonly k: Shared;
  /** @internal flags (1 byte), wallet (32), balance (16), lt (8), data hash (32) */
  readonly t: string;
  constructor(shared: Shared, tail: string) {
    this.k = shared;
    this.t = tail;
  }
  get fetchedAt(): number {
    return this.k.fetchedAt;
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
 * Packs the records of one poll or one file: each record's shared part, and the "none"
 * record of each answer, kept once for as long as the records that use them. Made per
 * poll or decode and dropped with it.
 */
export function createJettonPacker(): (record: JettonRecord) => JettonRecord {
  const kept = new Map<string, Shared | JettonRecord>();
  /** Where each record's bytes are put. */
  const bytes = Buffer.alloc(LENGTH);
  const once = <T extends Shared | JettonRecord>(key: string, value: T): T => {
    const known = kept.get(key) as T | undefined;
    if (known !== undefined) return known;
    kept.set(key, value);
    return value;
  };
  return (record) => {
    if (record instanceof PackedJettonRecord) return record;
    const { wallet, lastTransactionLt: lt, dataHash, codeHash, fetchedAt, upstream } = record;
    if (wallet === null && record.balance === '0' && lt === null && dataHash === null && codeHash === null) {
      return once(`none\0${fetchedAt}\0${upstream}`, Object.freeze(plainJettonRecord(record)));
    }
    // A part the record does not have is zeros.
    bytes.fill(0);
    bytes[FLAGS] = (lt === null ? 0 : HAS_LT) | (dataHash === null ? 0 : HAS_DATA_HASH);
    let workchain: string | null = null;
    if (wallet !== null) {
      if (!isCanonicalRaw(wallet) || !putUpperHex(bytes, WALLET_AT, wallet.slice(wallet.length - 64))) return record;
      workchain = wallet.slice(0, wallet.length - 65);
    }
    if (!putUnsigned(bytes, BALANCE_AT, record.balance, 16)) return record;
    if (lt !== null && !putUnsigned(bytes, LT_AT, lt, 8)) return record;
    if (dataHash !== null && !putBase64Hash(bytes, DATA_HASH_AT, dataHash)) return record;
    const shared = once(`${fetchedAt}\0${upstream}\0${codeHash}\0${workchain}`, { fetchedAt, codeHash, upstream, workchain });
    return new PackedJettonRecord(shared, bytesText(bytes, LENGTH));
  };
}
