/**
 * Shard identifiers. Upstreams carry a shard as a signed 64-bit integer written in decimal
 * (`"-9223372036854775808"`); explorers, and our metric labels, print the same 64 bits as
 * 16 uppercase hex digits (`"8000000000000000"` for the whole-workchain shard).
 */

const UINT64_MASK = (1n << 64n) - 1n;

/** The shard id that covers a whole workchain (one prefix bit set, the tag bit). */
export const WHOLE_WORKCHAIN_SHARD = 0x8000000000000000n;

/** Parses a signed decimal shard string into its unsigned 64-bit value. Throws on bad input. */
export function parseSignedShard(decimal: string): bigint {
  if (!/^-?\d{1,20}$/.test(decimal)) throw new RangeError(`not a decimal shard id: ${decimal}`);
  const value = BigInt(decimal);
  if (value < -(1n << 63n) || value >= 1n << 63n) {
    throw new RangeError(`shard id out of the signed 64-bit range: ${decimal}`);
  }
  return BigInt.asUintN(64, value);
}

/** `"-9223372036854775808"` → `"8000000000000000"`. */
export function signedShardToHex(decimal: string): string {
  return unsignedShardToHex(parseSignedShard(decimal));
}

export function unsignedShardToHex(shard: bigint): string {
  return (shard & UINT64_MASK).toString(16).toUpperCase().padStart(16, '0');
}

/** Unsigned 64-bit shard value → signed decimal string, as upstreams send it. */
export function unsignedShardToSigned(shard: bigint): string {
  return BigInt.asIntN(64, shard).toString(10);
}

/** The lowest set bit (the shard's tag bit); 0 for the invalid shard 0. */
function tagBit(shard: bigint): bigint {
  return shard & -shard;
}

/** Prefix length in bits: 0 for the whole workchain, up to 60 in practice. */
export function shardDepth(shard: bigint): number {
  const tag = tagBit(shard);
  if (tag === 0n) throw new RangeError('shard 0 is not a valid shard id');
  let depth = 63;
  for (let t = tag; t > 1n; t >>= 1n) depth -= 1;
  return depth;
}

/** The two children of a shard split. */
export function splitShard(shard: bigint): [bigint, bigint] {
  const tag = tagBit(shard);
  if (tag < 2n) throw new RangeError('shard cannot be split further');
  const half = tag >> 1n;
  return [shard - half, shard + half];
}

/** The parent of a shard (the shard its merge with its sibling produces). */
export function parentShard(shard: bigint): bigint {
  const tag = tagBit(shard);
  if (tag === WHOLE_WORKCHAIN_SHARD) throw new RangeError('the whole-workchain shard has no parent');
  return ((shard & ~((tag << 2n) - 1n)) | (tag << 1n)) & UINT64_MASK;
}

/** The sibling a shard merges with. */
export function siblingShard(shard: bigint): bigint {
  return (shard ^ (tagBit(shard) << 1n)) & UINT64_MASK;
}

/** Whether an account whose id starts with these 64 bits (big-endian) lives in this shard. */
export function shardContains(shard: bigint, accountPrefix: bigint): boolean {
  const mask = ~((tagBit(shard) << 1n) - 1n) & UINT64_MASK;
  return (accountPrefix & mask) === (shard & mask);
}
