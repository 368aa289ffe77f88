import { gzip } from 'node:zlib';

/**
 * gzip for /metrics, one member per pre-rendered block. Concatenated gzip members are one
 * valid gzip stream (RFC 1952, 2.2), so a block compressed once is sent as it is for as
 * long as the block itself is kept, and only what changed is compressed again.
 *
 * Level 1: the text is label sets and numbers, and the fastest level compresses it about
 * as well as the default while taking half the CPU. zlib's async API runs in libuv's
 * thread pool, off the event loop that answers the other endpoints.
 */
const LEVEL = 1;

/**
 * At most this many compressions at once. Each holds a deflate state of a few hundred KiB
 * for as long as it waits in the thread pool; a first scrape at 100,000 wallets asks for
 * hundreds of members together, and the allocator keeps what they all took.
 */
const AT_ONCE = 2;

export interface GzipMembers {
  /** The member for a kept block: compressed once, keyed by the buffer itself (a block replaced is a new buffer; the old one's member goes with it). */
  kept(buffer: Buffer): Promise<Buffer>;
  /** A member for a part made per scrape, not kept. */
  once(buffer: Buffer): Promise<Buffer>;
}

export function createGzipMembers(): GzipMembers {
  const members = new WeakMap<Buffer, Promise<Buffer>>();
  let running = 0;
  const waiting: (() => void)[] = [];
  const once = async (buffer: Buffer): Promise<Buffer> => {
    if (running >= AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await new Promise<Buffer>((resolve, reject) => gzip(buffer, { level: LEVEL }, (err, out) => (err ? reject(err) : resolve(out))));
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
  return {
    once,
    kept(buffer) {
      let member = members.get(buffer);
      if (member === undefined) {
        member = once(buffer);
        members.set(buffer, member);
        // A failure is not kept: the next scrape tries again.
        member.catch(() => members.delete(buffer));
      }
      return member;
    },
  };
}
