import { decodeQueueFile } from '../features/wallets/file-format.js';
import { FORMAT, QUEUE_FILE_VERSION } from '../features/queue-sizes/file-format.js';
import type { QueueSizesSnapshot, WalletRecord } from '../snapshot/types.js';
import { createRowExpander, createStringPool, createWalletRowWriter, decodeWalletRow, type StringPool } from '../features/wallets/file-rows.js';

/**
 * What replicas hand each other through Redis, in the snapshot files' own forms: a wallet
 * record is one record line of the wallets file (file-format.ts), standalone (no
 * references to other lines), its fetch time in wall time; queue sizes are the queue
 * file's document. A replica turns wall times back into its own process clock.
 */

/** One record as a standalone line; `wallOffset`: wall minus process time now. */
export function encodeRecord(record: WalletRecord, wallOffset: number): string {
  return createWalletRowWriter(wallOffset)(record);
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
    const wrong = createRowExpander()(row);
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

export function encodeQueueSizes(queueSizes: QueueSizesSnapshot, wallOffset: number): string {
  return JSON.stringify({
    format: FORMAT,
    version: QUEUE_FILE_VERSION,
    part: 'queue_sizes',
    queueSizes: { ...queueSizes, fetchedAt: queueSizes.fetchedAt + wallOffset },
  });
}

export function decodeQueueSizes(text: string, toProcess: (wall: number) => number): QueueSizesSnapshot | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = decodeQueueFile(value);
  if (!parsed.success) return null;
  const read = parsed.data.queueSizes;
  return { ...read, fetchedAt: toProcess(read.fetchedAt) };
}
