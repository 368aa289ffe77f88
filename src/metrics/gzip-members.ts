import { perObject } from '../domain/per-object.js';
import { Readable, pipeline } from 'node:stream';
import { createGunzip, gzip, gzipSync } from 'node:zlib';

/**
 * gzip for /metrics, one member per pre-rendered block. Concatenated gzip members are one
 * valid gzip stream (RFC 1952, 2.2), so a block compressed once is sent as it is for as
 * long as the block itself is kept, and only what changed is compressed again.
 *
 * Level 1 with a 4 KiB window: the text is label sets and numbers whose repeats are a
 * line or two apart, so the fastest level and a small window compress as well as the
 * defaults for much less CPU and memory (figures: docs/benchmarks.md). zlib's async API
 * runs in libuv's thread pool, off the event loop that answers the other endpoints.
 */
const OPTIONS = { level: 1, windowBits: 12 };

/**
 * The thread pool's output buffer for a part: a part's member (40-85 KB for a family of
 * 1,000 wallets) comes back in one or two round trips to the pool instead of three to six
 * of zlib's default 16 KiB. A member much smaller than the buffer is copied out of it
 * (compress()).
 */
const PART_OPTIONS = { ...OPTIONS, chunkSize: 64 * 1024 };

/**
 * At most this many compressions at once (per Compressor: the daemon shares one). Each holds a deflate state of a
 * few hundred KiB for as long as it waits in the thread pool; a first render at 100,000
 * wallets asks for hundreds of members together, and the allocator keeps what they all took.
 */
const AT_ONCE = 2;

/** A block of text kept only compressed: its gzip member and the length of the text it holds. */
export interface GzipPart {
  readonly gzip: Buffer;
  /** Bytes of the text once decompressed (what an identity body sends for it). */
  readonly length: number;
}

export const EMPTY_PART: GzipPart = { gzip: Buffer.alloc(0), length: 0 };

/** Compression in the thread pool, at most `atOnce` at a time; one is shared by everything that renders /metrics. */
export interface Compressor {
  /** One gzip member of `buffer`. */
  compress(buffer: Buffer): Promise<Buffer>;
  /** A text's part; nothing to compress for an empty text. */
  part(text: Buffer): Promise<GzipPart>;
}

export function createCompressor(atOnce = AT_ONCE): Compressor {
  let running = 0;
  const waiting: (() => void)[] = [];
  const compress = async (buffer: Buffer): Promise<Buffer> => {
    if (running >= atOnce) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      const member = await new Promise<Buffer>((resolve, reject) => gzip(buffer, PART_OPTIONS, (err, out) => (err ? reject(err) : resolve(out))));
      // zlib hands a short output as a slice of its output buffer (PART_OPTIONS.chunkSize):
      // kept for long, it would hold the whole buffer.
      return member.byteLength + 1024 < member.buffer.byteLength ? Buffer.from(member) : member;
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
  return {
    compress,
    part: async (text) => (text.length === 0 ? EMPTY_PART : { gzip: await compress(text), length: text.length }),
  };
}

/**
 * A text's part, compressed now on the event loop: for small texts only (family headers,
 * the self metrics of a scrape), where the thread pool's round trip through a zlib stream
 * costs more main-thread time than compressing.
 */
export function compressSmall(text: Buffer): GzipPart {
  return { gzip: gzipSync(text, OPTIONS), length: text.length };
}

/**
 * The text of parts, in order, as it decompresses: one gunzip stream reads every member (a
 * gzip reader takes concatenated members as one stream), fed a member at a time as the
 * reader takes the text, which comes in chunks of INFLATED_CHUNK bytes, not one per part.
 * An identity body is made from the kept members without holding it whole. One inflater
 * and its window a body, not one a part (800 of them at 100,000 wallets), each with a
 * buffer of its whole part: the allocator kept what those took (the process's malloc heap
 * grew by 10-17 MB at the first identity scrape of 10,000 wallets, and never gave it back).
 */
export async function* inflateParts(all: readonly GzipPart[]): AsyncGenerator<Buffer> {
  // An empty text has no member to decompress.
  const members = all.filter((part) => part.length > 0).map((part) => part.gzip);
  if (members.length === 0) return;
  const inflater = createGunzip({ chunkSize: INFLATED_CHUNK });
  const feed = Readable.from(members);
  // A failure reaches the reader through the loop below; the callback only has to be there.
  pipeline(feed, inflater, () => undefined);
  try {
    for await (const chunk of inflater) yield chunk as Buffer;
  } finally {
    // A reader gone before the end (the client left): stop decompressing.
    feed.destroy();
    inflater.destroy();
  }
}

/** Bytes of text per chunk of an identity body: a few system calls per MB, and small enough to reuse. */
const INFLATED_CHUNK = 64 * 1024;

export interface GzipMembers {
  /** The member for a kept block: compressed once, keyed by the buffer itself (a block replaced is a new buffer; the old one's member goes with it). */
  kept(buffer: Buffer): Promise<Buffer>;
}

export function createGzipMembers(compressor: Compressor = createCompressor()): GzipMembers {
  const members = perObject((buffer: Buffer): Promise<Buffer> => {
    const member = compressor.compress(buffer);
    // A failure is not kept: the next scrape tries again.
    member.catch(() => members.forget(buffer));
    return member;
  });
  return { kept: members };
}
