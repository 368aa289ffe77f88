import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { decodeWalletsFirstLine } from './file-format.js';

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
/** Bytes read at a time from either end of the file, for its first and last lines. */
const END_READ = 65_536;

/**
 * The record lines of a version 5 wallets file, each found on its own (wallets-index.ts
 * reads records from them): `count` lines, line `i` read by `lineAt(i)`, its key by
 * `keyAt(i)`, with what the file's references stand for.
 */
export interface RecordLines {
  readonly count: number;
  /** The file's fetch time, wall clock. */
  readonly fetchedAt: number;
  readonly references: readonly unknown[];
  /** Record line `line` (0-based), without its newline. */
  lineAt(line: number): Buffer;
  /** The key a record line starts with (`["0:…",`), or '' for a line that does not. */
  keyAt(line: number): string;
}

/** The header of a version 5 file's first line, or null. */
function headerOf(line: string): { fetchedAt: number; records: number } | null {
  try {
    const first = decodeWalletsFirstLine(JSON.parse(line));
    return 'header' in first && first.version === 5 ? first.header : null;
  } catch {
    return null;
  }
}

/** The key a record line starts with, from `bytes` at `start`, or ''. */
function keyIn(bytes: Buffer, start: number, end: number): string {
  if (bytes[start] !== 0x5b || bytes[start + 1] !== QUOTE) return '';
  const close = bytes.indexOf(QUOTE, start + 2);
  return close === -1 || close > end ? '' : bytes.toString('latin1', start + 2, close);
}

/**
 * The record lines of a whole file's bytes, found by scanning for each line's end (~40 ms
 * at 100,000 wallets); null for another version, or lines that do not add up.
 */
export function linesOfBytes(bytes: Buffer): RecordLines | null {
  let end = bytes.indexOf(NEWLINE);
  if (end === -1) return null;
  const header = headerOf(bytes.toString('utf8', 0, end));
  if (header === null) return null;
  const count = header.records;
  const starts = new Int32Array(count);
  const ends = new Int32Array(count);
  let rows = 0;
  let references: unknown = null;
  for (let start = end + 1; start < bytes.length; start = end + 1) {
    end = bytes.indexOf(NEWLINE, start);
    if (end === -1) end = bytes.length;
    if (end === start) continue;
    if (bytes[start] === OPEN_BRACE) {
      try {
        references = (JSON.parse(bytes.toString('utf8', start, end)) as { references?: unknown }).references;
      } catch {
        return null;
      }
      break;
    }
    if (rows === count) return null;
    starts[rows] = start;
    ends[rows] = end;
    rows += 1;
  }
  if (rows !== count || !Array.isArray(references)) return null;
  return {
    count,
    fetchedAt: header.fetchedAt,
    references,
    lineAt: (line) => bytes.subarray(starts[line], ends[line]),
    keyAt: (line) => keyIn(bytes, starts[line] as number, ends[line] as number),
  };
}

/**
 * The record lines of a version 5 file read by position through `handle`: its first line,
 * and its last, which lists each record line's length (the files tonwatch writes now);
 * a record line is read when asked for, in one small read. What a start needs before
 * the first walletStates answer is then a few kilobytes, not the whole file (27 MB at
 * 100,000 wallets, ~100 ms to read). Null when the file does not give the lengths, or
 * they do not add up to its size: it is then read whole (linesOfBytes).
 */
export async function linesByPosition(handle: FileHandle): Promise<RecordLines | null> {
  const { size } = await handle.stat();
  const head = Buffer.alloc(Math.min(size, END_READ));
  await handle.read(head, 0, head.length, 0);
  const headerEnd = head.indexOf(NEWLINE);
  if (headerEnd === -1) return null;
  const header = headerOf(head.toString('utf8', 0, headerEnd));
  if (header === null || header.records === 0) return null;
  const count = header.records;
  // The last line: the references, and the lengths (5⅓ characters of base64 a record).
  const tail = Buffer.alloc(Math.min(size, Math.ceil((count * 16) / 3) + END_READ));
  await handle.read(tail, 0, tail.length, size - tail.length);
  const lastStart = tail.lastIndexOf(NEWLINE, tail.length - 2) + 1;
  if (lastStart === 0 || tail[lastStart] !== OPEN_BRACE) return null;
  let last: { references?: unknown; lineBytes?: unknown };
  try {
    last = JSON.parse(tail.toString('utf8', lastStart, tail.length)) as typeof last;
  } catch {
    return null;
  }
  const { references, lineBytes } = last;
  if (!Array.isArray(references) || typeof lineBytes !== 'string') return null;
  const lengths = Buffer.from(lineBytes, 'base64');
  if (lengths.length !== 4 * count) return null;
  const starts = new Float64Array(count + 1);
  starts[0] = headerEnd + 1;
  for (let line = 0; line < count; line += 1) starts[line + 1] = (starts[line] as number) + lengths.readUInt32LE(4 * line);
  // The lines must end where the last line starts: else the lengths are not this file's.
  if (starts[count] !== size - tail.length + lastStart) return null;
  const { fd } = handle;
  // The line read last: a lookup reads a line's key, then the same line whole.
  let lastRead = { line: -1, bytes: Buffer.alloc(0) };
  const lineAt = (line: number): Buffer => {
    if (lastRead.line === line) return lastRead.bytes;
    const start = starts[line] as number;
    const bytes = Buffer.allocUnsafe((starts[line + 1] as number) - start - 1);
    readSync(fd, bytes, 0, bytes.length, start);
    lastRead = { line, bytes };
    return bytes;
  };
  return {
    count,
    fetchedAt: header.fetchedAt,
    references,
    lineAt,
    keyAt: (line) => {
      const bytes = lineAt(line);
      return keyIn(bytes, 0, bytes.length);
    },
  };
}
