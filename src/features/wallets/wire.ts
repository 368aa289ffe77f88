import type { WalletRecord } from '../../accounts/types.js';
import { createRowExpander, createWalletRowWriter, decodeWalletRow } from './file-rows.js';
import { createStringPool, type StringPool } from './string-pool.js';

/**
 * A wallet record as replicas hand it to each other through Redis (cluster/share.ts): one
 * record line of the wallets file (file-format.ts), standalone (no references to other
 * lines), its fetch time in wall time; a replica turns it back into its own process clock.
 * Lines are written as version 5 lines, which replicas of every release read, and read in
 * either version 5's or version 6's columns.
 */

/** One record as a standalone line; `wallOffset`: wall minus process time now. */
export function encodeRecord(record: WalletRecord, wallOffset: number): string {
  return createWalletRowWriter(wallOffset, 5)(record);
}

/** Decodes records from lines; a line that does not decode is counted and skipped. */
export function decodeRecords(
  lines: Iterable<string>,
  toProcess: (wall: number) => number,
  pool: StringPool = createStringPool(),
): { records: WalletRecord[]; refused: number; problem: string | null } {
  const records: WalletRecord[] = [];
  let refused = 0;
  let problem: string | null = null;
  for (const line of lines) {
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (err) {
      refused += 1;
      problem = `not JSON: ${(err as Error).message}`;
      continue;
    }
    // Standalone lines hold no references: a fresh expander for each.
    const wrong = createRowExpander(undefined, true)(row);
    const decoded = wrong === null ? decodeWalletRow(row, pool) : ({ ok: false, problem: wrong } as const);
    if (!decoded.ok) {
      refused += 1;
      problem = decoded.problem;
      continue;
    }
    const fetchedAt = toProcess(decoded.record.fetchedAt);
    records.push(fetchedAt === decoded.record.fetchedAt ? decoded.record : { ...decoded.record, fetchedAt });
  }
  return { records, refused, problem };
}

/**
 * One standalone line back, its time on the process clock; null when it cannot be read.
 * `pool`: where repeated values are kept once; a replica passes one that lives as long as
 * it does, or every record received would hold its own copies (~350 B a record).
 */
export function decodeRecord(line: string, toProcess: (wall: number) => number, pool?: StringPool): WalletRecord | null {
  return decodeRecords([line], toProcess, pool).records[0] ?? null;
}
