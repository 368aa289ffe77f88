import { decodeWalletsFirstLine } from './file-format.js';
import type { WalletRecord, WalletsLookup } from './types.js';
import { createRowExpander, createStringPool, decodeWalletRow } from './wallet-rows.js';
import { inProcessTime } from './wallets-file.js';

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;

/**
 * The records of a version 5 wallets file, each read from the file's bytes when first
 * asked for (file-format.ts: its last line lists what the references stand for, so a line
 * reads on its own). A start serves walletStates from this while decodeWalletsBytes reads
 * the whole file: at 100,000 wallets that takes most of a second, finding where each line
 * starts a few milliseconds. Null for another version (read whole before it is served) or
 * a file whose lines do not add up (decodeWalletsBytes says why).
 *
 * `placeOf` guesses a wallet's line: the file is written in the snapshot's order, the
 * watchlist's. A guess the line's key does not confirm makes an index of every line's key,
 * once.
 */
export function indexWalletsBytes(
  bytes: Buffer,
  toProcess: (wall: number) => number,
  placeOf: (raw: string) => number | undefined = () => undefined,
): WalletsLookup | null {
  let end = bytes.indexOf(NEWLINE);
  if (end === -1) return null;
  let first: ReturnType<typeof decodeWalletsFirstLine>;
  try {
    first = decodeWalletsFirstLine(JSON.parse(bytes.toString('utf8', 0, end)));
  } catch {
    return null;
  }
  if (!('header' in first) || first.version !== 5) return null;
  const count = first.header.records;
  const starts = new Int32Array(count);
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
    rows += 1;
  }
  if (rows !== count || !Array.isArray(references)) return null;

  const expand = createRowExpander(references);
  const pool = createStringPool();
  const read = new Map<string, WalletRecord | null>();
  let lineOfKey: Map<string, number> | null = null;
  const keyAt = (line: number): string => {
    const from = (starts[line] as number) + 2;
    return bytes.toString('latin1', from, bytes.indexOf(QUOTE, from));
  };
  const lineOf = (raw: string): number | undefined => {
    const guess = placeOf(raw);
    if (guess !== undefined && guess >= 0 && guess < count && keyAt(guess) === raw) return guess;
    if (lineOfKey === null) {
      lineOfKey = new Map();
      for (let line = 0; line < count; line += 1) lineOfKey.set(keyAt(line), line);
    }
    return lineOfKey.get(raw);
  };
  const recordAt = (line: number): WalletRecord | null => {
    const start = starts[line] as number;
    const stop = bytes.indexOf(NEWLINE, start);
    try {
      const row: unknown = JSON.parse(bytes.toString('utf8', start, stop === -1 ? bytes.length : stop));
      if (expand(row) !== null) return null;
      const decoded = decodeWalletRow(row, pool);
      return decoded.ok ? inProcessTime(decoded.record, toProcess) : null;
    } catch {
      return null;
    }
  };
  return {
    fetchedAt: toProcess(first.header.fetchedAt),
    wallets: {
      get(raw) {
        let record = read.get(raw);
        if (record === undefined) {
          const line = lineOf(raw);
          record = line === undefined ? null : recordAt(line);
          read.set(raw, record);
        }
        return record ?? undefined;
      },
    },
  };
}
