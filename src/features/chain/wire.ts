import type { HeadsSnapshot, ValidatorsSnapshot } from './types.js';

/**
 * The chain feature's parts as replicas hand them to each other through Redis
 * (cluster/share.ts): one line each, JSON with its bigints as `{"$n":"…"}` and its maps as
 * `{"$m":[[key, value], …]}`, fetchedAt in wall time.
 */

export type ChainRecord = { readonly part: 'heads'; readonly snapshot: HeadsSnapshot } | { readonly part: 'validators'; readonly snapshot: ValidatorsSnapshot };

const replacer = (_key: string, value: unknown): unknown =>
  typeof value === 'bigint' ? { $n: value.toString() } : value instanceof Map ? { $m: [...(value as Map<unknown, unknown>)] } : value;

const reviver = (_key: string, value: unknown): unknown => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const tagged = value as { $n?: unknown; $m?: unknown };
  if (typeof tagged.$n === 'string' && /^-?\d+$/.test(tagged.$n)) return BigInt(tagged.$n);
  if (Array.isArray(tagged.$m)) return new Map(tagged.$m as [unknown, unknown][]);
  return value;
};

export function encodeChainRecord(record: ChainRecord, wallOffset: number): string {
  return JSON.stringify({ ...record, snapshot: { ...record.snapshot, fetchedAt: record.snapshot.fetchedAt + wallOffset } }, replacer);
}

export function decodeChainRecord(line: string, toProcess: (wall: number) => number): ChainRecord | null {
  try {
    const value = JSON.parse(line, reviver) as { part?: unknown; snapshot?: { fetchedAt?: unknown } };
    if ((value.part !== 'heads' && value.part !== 'validators') || typeof value.snapshot?.fetchedAt !== 'number') return null;
    return { ...value, snapshot: { ...value.snapshot, fetchedAt: toProcess(value.snapshot.fetchedAt) } } as ChainRecord;
  } catch {
    return null;
  }
}
