import { readFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { WalletRecord, WalletsLookup } from './types.js';
import { createRowExpander, createStringPool, decodeWalletRow } from './wallet-rows.js';
import { inProcessTime } from './wallets-file.js';
import { linesByPosition, linesOfBytes, type RecordLines } from './wallets-lines.js';

/** Wallets read one at a time from a file's record lines, and the lines changed for others of the same file. */
export interface RecordLookup {
  readonly lookup: WalletsLookup;
  /**
   * Reads from the lines `next` gives from now on, made when next asked for (the whole
   * file's lines, when those read by position are about to be closed).
   */
  use(next: () => RecordLines | null): void;
}

/**
 * The records of a version 5 wallets file, each read from its line when first asked for
 * (file-format.ts: its last line lists what the references stand for, so a line reads on
 * its own). A start serves walletStates from this while decodeWalletsBytes reads the
 * whole file: at 100,000 wallets that takes most of a second.
 *
 * `placeOf` guesses a wallet's line: the file is written in the snapshot's order, the
 * watchlist's. A guess the line's key does not confirm makes an index of every line's key,
 * once, over the whole file's lines: `whole` gives them when the lines in use are read by
 * position (a read of the whole file, then and there).
 */
export function createRecordLookup(
  first: RecordLines,
  toProcess: (wall: number) => number,
  placeOf: (raw: string) => number | undefined = () => undefined,
  whole: () => RecordLines | null = () => null,
): RecordLookup {
  let lines = first;
  let expand = createRowExpander(lines.references);
  let byKey: Map<string, number> | null = null;
  let replacement: (() => RecordLines | null) | null = null;
  const pool = createStringPool();
  const read = new Map<string, WalletRecord | null>();
  const switchTo = (next: RecordLines | null): void => {
    if (next === null) return;
    lines = next;
    expand = createRowExpander(next.references);
    byKey = null;
  };
  const lineOf = (raw: string): number | undefined => {
    if (replacement !== null) {
      switchTo(replacement());
      replacement = null;
    }
    const guess = placeOf(raw);
    if (guess !== undefined && guess >= 0 && guess < lines.count && lines.keyAt(guess) === raw) return guess;
    if (byKey === null) {
      if (lines === first) switchTo(whole());
      byKey = new Map();
      for (let line = 0; line < lines.count; line += 1) byKey.set(lines.keyAt(line), line);
    }
    return byKey.get(raw);
  };
  const recordAt = (line: number): WalletRecord | null => {
    try {
      const row: unknown = JSON.parse(lines.lineAt(line).toString('utf8'));
      if (expand(row) !== null) return null;
      const decoded = decodeWalletRow(row, pool);
      return decoded.ok ? inProcessTime(decoded.record, toProcess) : null;
    } catch {
      return null;
    }
  };
  return {
    use: (next) => (replacement = next),
    lookup: {
      fetchedAt: toProcess(first.fetchedAt),
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
    },
  };
}

/** The records of a whole version 5 file's bytes, read when asked for; null for another version or lines that do not add up. */
export function indexWalletsBytes(bytes: Buffer, toProcess: (wall: number) => number, placeOf?: (raw: string) => number | undefined): WalletsLookup | null {
  const lines = linesOfBytes(bytes);
  return lines === null ? null : createRecordLookup(lines, toProcess, placeOf).lookup;
}

/** No lines: what a lookup reads from once its file is closed without having been read whole (never asked then: loading is over). */
const NO_LINES: RecordLines = { count: 0, fetchedAt: 0, references: [], lineAt: () => Buffer.alloc(0), keyAt: () => '' };

/**
 * Offers `offer` the wallets of the wallets file `file` one at a time, for a start to
 * answer walletStates while it reads the file whole: at once, read by position, when the
 * file gives its lines' lengths; else from the whole bytes, once `haveBytes` gives them.
 * `close` once the file is loaded (or not).
 */
export async function offerFileWallets(
  file: string,
  toProcess: (wall: number) => number,
  placeOf: (raw: string) => number | undefined,
  offer: (index: () => WalletsLookup | null) => void,
): Promise<{ haveBytes(bytes: Buffer): void; close(): Promise<void> }> {
  let handle: FileHandle | null = null;
  let bytes: Buffer | null = null;
  let byPosition: RecordLookup | null = null;
  try {
    handle = await open(file, 'r');
    const lines = await linesByPosition(handle);
    if (lines !== null) {
      const whole = (): RecordLines | null => {
        try {
          return linesOfBytes(bytes ?? readFileSync(file));
        } catch {
          return null;
        }
      };
      const made = createRecordLookup(lines, toProcess, placeOf, whole);
      byPosition = made;
      offer(() => made.lookup);
    }
  } catch {
    // Absent or unreadable: the whole read says why.
  }
  if (byPosition === null) {
    await handle?.close().catch(() => undefined);
    handle = null;
  }
  return {
    haveBytes(read) {
      bytes = read;
      if (byPosition !== null) return;
      let lookup: WalletsLookup | null | undefined;
      offer(() => (lookup === undefined ? (lookup = indexWalletsBytes(read, toProcess, placeOf)) : lookup));
    },
    async close() {
      const read = bytes;
      byPosition?.use(() => (read === null ? NO_LINES : linesOfBytes(read)));
      await handle?.close().catch(() => undefined);
    },
  };
}
