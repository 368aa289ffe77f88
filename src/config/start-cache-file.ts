import { setImmediate as nextTurn } from 'node:timers/promises';
import { deserialize, serialize } from 'node:v8';
import type { FileColumns, FileSource } from './watchlist.js';

/**
 * The start cache's file (start-cache.ts): a sequence of frames, each V8's serialization of
 * one value after its length: a header (the config's document, the files kept and their
 * sizes, the files to read ahead), then each watchlist file's columns a part at a time.
 *
 * A part holds its raw keys as one string and its names as another, with where each one
 * ends: a restart cuts the keys out of the first (V8 makes a cut of 13 characters or more
 * a view of the string, not a copy), where 100,000 strings of their own took ~45 ms more of
 * garbage collection to read. The string they are cut from is all keys, each kept.
 */

/** The cache's own format; another one (or another tonwatch version) is not read. */
const FORMAT = 'tonwatch-start-cache';
const FORMAT_VERSION = 2;
/** Watchlist entries per serialized part: a part takes a few milliseconds to encode. */
const ENTRIES_PER_PART = 16_384;

export interface KeptFile {
  readonly digest: string;
  readonly source: FileSource | null;
  readonly columns: FileColumns | null;
}

export interface Header {
  readonly format: string;
  readonly version: number;
  readonly tonwatch: string;
  readonly configPath: string;
  readonly document: { readonly digest: string; readonly bytes: Uint8Array; readonly entries?: Uint8Array } | null;
  readonly files: readonly { readonly file: string; readonly digest: string; readonly count: number }[];
  readonly readAhead: readonly string[];
}

export interface Kept {
  readonly document: Header['document'];
  readonly files: Map<string, KeptFile>;
  readonly readAhead: readonly string[];
}

export async function* encodeCache(configPath: string, tonwatch: string, { document, files, readAhead }: Kept): AsyncGenerator<Uint8Array> {
  const header: Header = {
    format: FORMAT,
    version: FORMAT_VERSION,
    tonwatch,
    configPath,
    document,
    files: [...files].map(([file, kept]) => ({ file, digest: kept.digest, count: sizeOf(kept) })),
    readAhead,
  };
  yield frame(header);
  for (const kept of files.values()) {
    for (let from = 0; from < sizeOf(kept); from += ENTRIES_PER_PART) {
      await nextTurn();
      yield frame(partOf(kept, from, Math.min(from + ENTRIES_PER_PART, sizeOf(kept))));
    }
  }
}

const sizeOf = (kept: KeptFile): number => (kept.source === null ? (kept.columns as FileColumns).raws.length : kept.source.wallets.length);

/** A part of a kept file as it is written: each column of strings as one string and where each of its strings ends. */
interface Part {
  readonly raws: string;
  readonly rawEnds: Uint32Array;
  readonly names: string;
  readonly nameEnds: Uint32Array;
  readonly lines: Uint32Array;
  readonly named: Uint8Array;
}

/** Strings as one, and where each ends in it. */
function packed(strings: readonly string[]): { text: string; ends: Uint32Array } {
  const ends = new Uint32Array(strings.length);
  let at = 0;
  for (let i = 0; i < strings.length; i += 1) {
    at += (strings[i] as string).length;
    ends[i] = at;
  }
  return { text: strings.join(''), ends };
}

/** The strings `packed` made one, each cut out of it. */
function unpacked(text: unknown, ends: unknown, into: string[], at: number): boolean {
  if (typeof text !== 'string' || !(ends instanceof Uint32Array)) return false;
  let from = 0;
  for (let i = 0; i < ends.length; i += 1) {
    const end = ends[i] as number;
    if (end < from || end > text.length) return false;
    into[at + i] = text.slice(from, end);
    from = end;
  }
  return from === text.length;
}

/** Entries `from` to `to` of a kept file as a part: one part at a time, not the whole file's columns at once. */
function partOf(kept: KeptFile, from: number, to: number): Part {
  const lines = Uint32Array.from(Array.prototype.slice.call(kept.source?.lines ?? kept.columns?.lines, from, to) as number[]);
  const wallets = kept.source?.wallets.slice(from, to);
  const columns = kept.columns as FileColumns;
  const raws = packed(wallets?.map((w) => w.raw) ?? columns.raws.slice(from, to));
  const names = packed(wallets?.map((w) => w.name) ?? columns.names.slice(from, to));
  const named = (kept.source?.named ?? columns.named).slice(from, to);
  return { raws: raws.text, rawEnds: raws.ends, names: names.text, nameEnds: names.ends, lines, named };
}

/** One value as a frame of the file: its length (4 bytes, little-endian), then V8's serialization of it. */
function frame(value: unknown): Buffer {
  const body = serialize(value);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(body.length);
  return Buffer.concat([length, body]);
}

export function readCache(bytes: Buffer, configPath: string, tonwatch: string): Kept {
  let at = 0;
  const next = (): unknown => {
    if (at + 4 > bytes.length) throw new Error('the start cache file is cut short');
    const length = bytes.readUInt32LE(at);
    if (at + 4 + length > bytes.length) throw new Error('the start cache file is cut short');
    const value = deserialize(bytes.subarray(at + 4, at + 4 + length)) as unknown;
    at += 4 + length;
    return value;
  };
  const header = next() as Partial<Header> | null;
  if (header?.format !== FORMAT || header.version !== FORMAT_VERSION) throw new Error('not a start cache file of this format');
  if (header.tonwatch !== tonwatch || header.configPath !== configPath) return { document: null, files: new Map(), readAhead: [] };
  const files = new Map<string, KeptFile>();
  for (const { file, digest, count } of header.files ?? []) {
    const raws = new Array<string>(count);
    const names = new Array<string>(count);
    const lines = new Uint32Array(count);
    const named = new Uint8Array(count);
    for (let read = 0; read < count;) {
      const part = next() as Partial<Part> | null;
      const size = part?.lines instanceof Uint32Array ? part.lines.length : -1;
      if (
        size <= 0 ||
        read + size > count ||
        !(part?.named instanceof Uint8Array) ||
        part.named.length !== size ||
        part.rawEnds?.length !== size ||
        part.nameEnds?.length !== size ||
        !unpacked(part.raws, part.rawEnds, raws, read) ||
        !unpacked(part.names, part.nameEnds, names, read)
      ) {
        throw new Error(`the start cache's part for ${file} does not add up`);
      }
      lines.set(part.lines as Uint32Array, read);
      named.set(part.named, read);
      read += size;
    }
    files.set(file, { digest, source: null, columns: { raws, names, lines, named } });
  }
  const readAhead = Array.isArray(header.readAhead) ? header.readAhead.filter((file): file is string => typeof file === 'string') : [];
  return { document: header.document ?? null, files, readAhead };
}
