import { setImmediate as nextTurn } from 'node:timers/promises';
import { deserialize, serialize } from 'node:v8';
import type { FileColumns, FileSource } from './watchlist.js';
import { readEarlyRecord, type EarlyRecord } from './early-record.js';

/**
 * The start cache's file (start-cache.ts): a sequence of frames, each V8's serialization of
 * one value after its length: a header (the config's document, the files kept and their
 * sizes, the files to read ahead, what a start answers with early), then each watchlist
 * file's columns a part at a time.
 */

/** The cache's own format; another one (or another tonwatch version) is not read. */
const FORMAT = 'tonwatch-start-cache';
const FORMAT_VERSION = 1;
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
  readonly document: {
    readonly digest: string;
    readonly bytes: Uint8Array;
    readonly entries?: Uint8Array;
    /** The config schema's result, under the digest of the document the environment filled in (start-cache.ts). */
    readonly parsed?: { readonly key: string; readonly bytes: Uint8Array };
  } | null;
  readonly files: readonly { readonly file: string; readonly digest: string; readonly count: number }[];
  readonly readAhead: readonly string[];
  /** early-record.ts; checked when read. */
  readonly early?: unknown;
}

export interface Kept {
  readonly document: Header['document'];
  readonly files: Map<string, KeptFile>;
  readonly readAhead: readonly string[];
  readonly early: EarlyRecord | null;
}

/** An empty cache's parts (a new Map each: a cache fills in its own). */
export const nothingKept = (): Kept => ({ document: null, files: new Map(), readAhead: [], early: null });

export async function* encodeCache(configPath: string, tonwatch: string, { document, files, readAhead, early }: Kept): AsyncGenerator<Uint8Array> {
  const header: Header = {
    format: FORMAT,
    version: FORMAT_VERSION,
    tonwatch,
    configPath,
    document,
    files: [...files].map(([file, kept]) => ({ file, digest: kept.digest, count: sizeOf(kept) })),
    readAhead,
    early,
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

/** Entries `from` to `to` of a kept file as columns: one part at a time, not the whole file's columns at once. */
function partOf(kept: KeptFile, from: number, to: number): FileColumns {
  const lines = Uint32Array.from(Array.prototype.slice.call(kept.source?.lines ?? kept.columns?.lines, from, to) as number[]);
  if (kept.source === null) {
    const columns = kept.columns as FileColumns;
    return { raws: columns.raws.slice(from, to), names: columns.names.slice(from, to), lines, named: columns.named.slice(from, to) };
  }
  const wallets = kept.source.wallets.slice(from, to);
  return { raws: wallets.map((w) => w.raw), names: wallets.map((w) => w.name), lines, named: kept.source.named.slice(from, to) };
}

/** One value as a frame of the file: its length (4 bytes, little-endian), then V8's serialization of it. */
function frame(value: unknown): Buffer {
  const body = serialize(value);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(body.length);
  return Buffer.concat([length, body]);
}

/** Reads the frames of a cache file one after another: the header first. */
function frames(bytes: Buffer): () => unknown {
  let at = 0;
  return () => {
    if (at + 4 > bytes.length) throw new Error('the start cache file is cut short');
    const length = bytes.readUInt32LE(at);
    if (at + 4 + length > bytes.length) throw new Error('the start cache file is cut short');
    const value = deserialize(bytes.subarray(at + 4, at + 4 + length)) as unknown;
    at += 4 + length;
    return value;
  };
}

/** The header of a cache file, of this format, kept by this tonwatch for this config; throws on another format. */
function headerOf(next: () => unknown, configPath: string, tonwatch: string): Partial<Header> | null {
  const header = next() as Partial<Header> | null;
  if (header?.format !== FORMAT || header.version !== FORMAT_VERSION) throw new Error('not a start cache file of this format');
  return header.tonwatch !== tonwatch || header.configPath !== configPath ? null : header;
}

/** The early record alone (the header's, not the watchlist parts): what start-early.ts reads. Throws as readCache does. */
export function readEarly(bytes: Buffer, configPath: string, tonwatch: string): EarlyRecord | null {
  return readEarlyRecord(headerOf(frames(bytes), configPath, tonwatch)?.early);
}

export function readCache(bytes: Buffer, configPath: string, tonwatch: string): Kept {
  const next = frames(bytes);
  const header = headerOf(next, configPath, tonwatch);
  if (header === null) return nothingKept();
  const files = new Map<string, KeptFile>();
  for (const { file, digest, count } of header.files ?? []) {
    const parts: FileColumns[] = [];
    for (let read = 0; read < count;) {
      const part = next() as FileColumns;
      if (part.raws.length !== part.names.length || part.raws.length !== part.lines.length || read + part.raws.length > count) {
        throw new Error(`the start cache's part for ${file} does not add up`);
      }
      parts.push(part);
      read += part.raws.length;
    }
    const lines = new Uint32Array(count);
    const named = new Uint8Array(count);
    let offset = 0;
    for (const part of parts) {
      lines.set(part.lines, offset);
      named.set(part.named, offset);
      offset += part.raws.length;
    }
    const raws = parts.length === 1 ? (parts[0] as FileColumns).raws : ([] as string[]).concat(...parts.map((part) => part.raws));
    const names = parts.length === 1 ? (parts[0] as FileColumns).names : ([] as string[]).concat(...parts.map((part) => part.names));
    files.set(file, { digest, source: null, columns: { raws, names, lines, named } });
  }
  const readAhead = Array.isArray(header.readAhead) ? header.readAhead.filter((file): file is string => typeof file === 'string') : [];
  return { document: ownDocument(header.document ?? null), files, readAhead, early: readEarlyRecord(header.early) };
}

/**
 * The document's byte arrays copied out of the file's bytes: v8.deserialize makes each a
 * view of the buffer it reads, and the document is kept for the life of the process (for
 * reloads and the next save), which would keep the whole file's buffer (8 MB at 100,000
 * watched wallets) resident with it.
 */
function ownDocument(document: Header['document']): Header['document'] {
  if (document === null) return null;
  const { bytes, entries, parsed } = document;
  return {
    ...document,
    bytes: new Uint8Array(bytes),
    ...(entries === undefined ? {} : { entries: new Uint8Array(entries) }),
    ...(parsed === undefined ? {} : { parsed: { ...parsed, bytes: new Uint8Array(parsed.bytes) } }),
  };
}
