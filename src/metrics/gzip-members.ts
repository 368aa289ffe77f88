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

export function gzipBuffer(buffer: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => gzip(buffer, { level: LEVEL }, (err, out) => (err ? reject(err) : resolve(out))));
}

/** Compresses each buffer once, keyed by the buffer itself (a block replaced is a new buffer; the old one's member goes with it). */
export function createGzipMembers(): (buffer: Buffer) => Promise<Buffer> {
  const members = new WeakMap<Buffer, Promise<Buffer>>();
  return (buffer) => {
    let member = members.get(buffer);
    if (member === undefined) {
      member = gzipBuffer(buffer);
      members.set(buffer, member);
      // A failure is not kept: the next scrape tries again.
      member.catch(() => members.delete(buffer));
    }
    return member;
  };
}
