import * as z from 'zod';
import type { JettonRecord, JettonsSnapshot } from '../../domain/jettons.js';
import { SNAPSHOT_FORMAT as FORMAT, type PartCodec } from '../../snapshot/persisted-file.js';
import { createJettonPacker } from './packed-record.js';

/**
 * The jettons part of the snapshot on disk, `<name>.jettons.json` beside the queue file:
 * one JSON document, each record a row `[owner, wallet|null, balance, lt|null, code_hash|null,
 * data_hash|null, fetchedAt (wall ms), upstream]` by jetton name. Balances stay the
 * decimal strings the upstream sent.
 */
export const JETTONS_FILE_VERSION = 1;

const rowSchema = z.tuple([
  z.string(),
  z.string().nullable(),
  z.string().regex(/^\d+$/),
  z.string().nullable(),
  z.string().nullable(),
  z.string().nullable(),
  z.number(),
  z.string(),
]);

const fileSchema = z.object({
  format: z.literal(FORMAT),
  part: z.literal('jettons'),
  version: z.literal(JETTONS_FILE_VERSION),
  fetchedAt: z.number(),
  jettons: z.record(z.string(), z.array(rowSchema)),
  /** Decimals read from masters' metadata, by master. */
  decimals: z.record(z.string(), z.number().int().min(0).max(255)).optional(),
  /** The master of each jetton name's records. */
  masters: z.record(z.string(), z.string()).optional(),
});

/** The file's text for a snapshot; times written as wall time (process time plus `wallOffset`). */
export function encodeJettons(snapshot: JettonsSnapshot, wallOffset: number): string {
  const jettons: Record<string, unknown[]> = {};
  for (const [name, records] of snapshot.jettons) {
    jettons[name] = [...records].map(([owner, r]) => [
      owner,
      r.wallet,
      r.balance,
      r.lastTransactionLt,
      r.codeHash,
      r.dataHash,
      r.fetchedAt + wallOffset,
      r.upstream,
    ]);
  }
  const decimals = Object.fromEntries(snapshot.decimals ?? []);
  const masters = snapshot.masters === undefined ? undefined : Object.fromEntries(snapshot.masters);
  const fetchedAt = snapshot.fetchedAt + wallOffset;
  return `${JSON.stringify({ format: FORMAT, part: 'jettons', version: JETTONS_FILE_VERSION, fetchedAt, jettons, decimals, masters })}\n`;
}

/** The snapshot in a file's bytes, times on the process clock (`toProcess`), or why not. */
export function decodeJettons(bytes: Buffer, toProcess: (wall: number) => number): { ok: true; snapshot: JettonsSnapshot } | { ok: false; problem: string } {
  let document: unknown;
  try {
    document = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    return { ok: false, problem: `not valid JSON: ${(err as Error).message}` };
  }
  const parsed = fileSchema.safeParse(document);
  if (!parsed.success)
    return { ok: false, problem: `not a ${FORMAT} jettons file: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}` };
  const jettons = new Map<string, Map<string, JettonRecord>>();
  const packed = createJettonPacker();
  for (const [name, rows] of Object.entries(parsed.data.jettons)) {
    const records = new Map<string, JettonRecord>();
    for (const [owner, wallet, balance, lastTransactionLt, codeHash, dataHash, fetchedAt, upstream] of rows) {
      const record = { wallet, balance, lastTransactionLt, codeHash, dataHash, fetchedAt: toProcess(fetchedAt), upstream };
      records.set(owner, packed(record));
    }
    jettons.set(name, records);
  }
  const { decimals, masters } = parsed.data;
  const snapshot: JettonsSnapshot = { jettons, fetchedAt: toProcess(parsed.data.fetchedAt), decimals: new Map(Object.entries(decimals ?? {})) };
  return { ok: true, snapshot: masters === undefined ? snapshot : { ...snapshot, masters: new Map(Object.entries(masters)) } };
}

/** The file as the persisted-file helper writes and reads it. */
export const JETTONS_FILE: PartCodec<JettonsSnapshot> = {
  what: 'jetton balances',
  encode: encodeJettons,
  decode(bytes, toProcess) {
    const decoded = decodeJettons(bytes, toProcess);
    return decoded.ok ? { ok: true, part: decoded.snapshot } : decoded;
  },
};
