import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { decodeWalletsFirstLine, walletsHeaderLine } from './file-format.js';
import { SNAPSHOT_FORMAT as FORMAT, type PartCodec } from '../../snapshot/persisted-file.js';
import type { WalletRecord } from '../../accounts/types.js';
import type { WalletsSnapshot } from './types.js';
import { createRowExpander, createWalletRowWriter, decodeWalletRow } from './file-rows.js';
import { createStringPool, type StringPool } from './string-pool.js';

/** Records per encoded piece of the wallets file. */
const RECORDS_PER_PART = 1000;
/**
 * Milliseconds of decoding between two turns of the event loop while the wallets file
 * loads: a served request waits at most about this long (the clock is read every
 * ROWS_PER_CLOCK_READ lines). By time, not by lines: the first lines after a start run
 * on code not compiled yet, many times slower than the rest.
 */
const SLICE_MS = 4;
const ROWS_PER_CLOCK_READ = 32;

/**
 * The wallets file, encoded a thousand records at a time as the writer asks for each
 * part: it runs to tens of megabytes, and neither one string of all of it nor all of its
 * parts are held at once. A cluster replica puts records into the snapshot's map
 * meanwhile (held.ts): each line is the record as it is when its part is encoded. The last line
 * gives, beside the references, each record line's length in bytes.
 */
export function* encodeWallets(wallets: WalletsSnapshot, wallOffset: number): Generator<Buffer> {
  // The records the map holds now; wallets a replica adds meanwhile come after them, and wait for the next write.
  const count = wallets.wallets.size;
  yield Buffer.from(`${walletsHeaderLine(wallets.fetchedAt + wallOffset, count)}\n`);
  const rowLine = createWalletRowWriter(wallOffset);
  const lineBytes = Buffer.alloc(4 * count);
  let row = 0;
  let lines: string[] = [];
  const part = (): Buffer => {
    let chars = 0;
    for (const line of lines) chars += line.length + 1;
    // Each line written where it goes, its length in bytes read off as it is: no joined
    // text, no second pass. UTF-8 takes at most three bytes for a character of a JS string.
    const bytes = Buffer.allocUnsafe(3 * chars);
    let at = 0;
    for (const line of lines) {
      const start = at;
      at += bytes.write(line, at);
      bytes[at++] = 10;
      lineBytes.writeUInt32LE(at - start, 4 * row++);
    }
    lines = [];
    return bytes.subarray(0, at);
  };
  let left = count;
  for (const record of wallets.wallets.values()) {
    if (left-- === 0) break;
    lines.push(rowLine(record));
    if (lines.length === RECORDS_PER_PART) yield part();
  }
  if (lines.length > 0) yield part();
  yield Buffer.from(`${JSON.stringify({ references: rowLine.references(), lineBytes: lineBytes.toString('base64') })}\n`);
}

/**
 * The records of a wallets file's bytes, or why not. A version 3 to 6 file is decoded a line at
 * a time, letting the event loop turn every SLICE_MS, so that served requests are answered
 * while 100,000 records load; a version 2 file (one document) in one go.
 */
export async function decodeWalletsBytes(
  bytes: Buffer,
  toProcess: (wall: number) => number,
  signal?: AbortSignal,
  /** Where repeated values are kept once (one for the load when not given). */
  pool: StringPool = createStringPool(),
): Promise<{ ok: true; wallets: WalletsSnapshot } | { ok: false; problem: string; aborted?: true }> {
  let end = bytes.indexOf(10);
  if (end === -1) end = bytes.length;
  let first: ReturnType<typeof decodeWalletsFirstLine>;
  try {
    first = decodeWalletsFirstLine(JSON.parse(bytes.toString('utf8', 0, end)));
  } catch (err) {
    return { ok: false, problem: `not valid JSON on line 1: ${(err as Error).message}` };
  }
  if ('problem' in first) return { ok: false, problem: `not a ${FORMAT} wallets file: ${first.problem}` };
  if (first.version === 2) {
    const { fetchedAt, records } = first.file.wallets;
    return {
      ok: true,
      wallets: { fetchedAt: toProcess(fetchedAt), wallets: new Map(records.map((r) => [r.raw, inProcessTime(r as WalletRecord, toProcess)])) },
    };
  }
  const records = new Map<string, WalletRecord>();
  const packedRows = first.version === 6;
  const expand = first.version === 3 ? null : createRowExpander(undefined, packedRows);
  let line = 1;
  let rows = 0;
  /** Whether a version 5 or 6 file's last line, the list of its references, was met (the lines before made the same list). */
  let referencesLine = false;
  let sliceStarted = performance.now();
  for (let start = end + 1; start < bytes.length; start = end + 1) {
    end = bytes.indexOf(10, start);
    if (end === -1) end = bytes.length;
    line += 1;
    if (end === start) continue;
    if (referencesLine) return { ok: false, problem: `line ${line}: a line after the references` };
    if (first.version >= 5 && bytes[start] === 0x7b) {
      referencesLine = true;
      continue;
    }
    let row: unknown;
    try {
      row = JSON.parse(bytes.toString('utf8', start, end));
    } catch (err) {
      return { ok: false, problem: `not valid JSON on line ${line}: ${(err as Error).message}` };
    }
    const wrong = expand?.(row) ?? null;
    if (wrong !== null) return { ok: false, problem: `line ${line}: ${wrong}` };
    const decoded = decodeWalletRow(row, pool, packedRows);
    if (!decoded.ok) return { ok: false, problem: `line ${line}: ${decoded.problem}` };
    records.set(decoded.record.raw, inProcessTime(decoded.record, toProcess));
    rows += 1;
    if (rows % ROWS_PER_CLOCK_READ === 0 && performance.now() - sliceStarted >= SLICE_MS) {
      await nextTurn();
      // A stop while the file loads: what was read is dropped, the file stays as it is.
      if (signal?.aborted === true) return { ok: false, problem: 'stopped before the file was read', aborted: true };
      sliceStarted = performance.now();
    }
  }
  if (rows !== first.header.records) return { ok: false, problem: `the header announces ${first.header.records} records, the file holds ${rows}` };
  if (first.version >= 5 && !referencesLine) return { ok: false, problem: 'the file ends before the line of its references' };
  return { ok: true, wallets: { fetchedAt: toProcess(first.header.fetchedAt), wallets: records } };
}

/** A record read from the file with its fetch time on the process clock; the same object when that changes nothing. */
export function inProcessTime(record: WalletRecord, toProcess: (wall: number) => number): WalletRecord {
  const fetchedAt = toProcess(record.fetchedAt);
  return fetchedAt === record.fetchedAt ? record : { ...record, fetchedAt };
}

/**
 * The file as the persisted-file helper writes and reads it; `newPool`: where each load
 * keeps repeated values (the wallets feature's interning and watchlist, else its own).
 */
export function walletsFile(newPool: () => StringPool = createStringPool): PartCodec<WalletsSnapshot> {
  return {
    what: 'wallet states',
    encode: (wallets, wallOffset) => encodeWallets(wallets, wallOffset),
    async decode(bytes, toProcess, signal) {
      const decoded = await decodeWalletsBytes(bytes, toProcess, signal, newPool());
      if (decoded.ok) return { ok: true, part: decoded.wallets };
      return decoded.aborted === true ? { ok: false, problem: decoded.problem, aborted: true } : { ok: false, problem: decoded.problem };
    },
  };
}

export const WALLETS_FILE = walletsFile();
