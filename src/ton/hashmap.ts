import type { Builder, Cell, Slice } from '@ton/core';

/**
 * TL-B hashmaps (block.tlb: `Hashmap n X`, `HashmapE`, `HashmapAug`) read along one key's
 * path, or leaf by leaf, without touching the rest: in a Merkle proof every branch but the
 * proven ones is a pruned cell, which a whole-dictionary parse would choke on.
 *
 *   hm_edge#_ label:(HmLabel ~l n) node:(HashmapNode m X) = Hashmap n X;
 *   hml_short$0 len:(Unary ~n) s:(n * Bit)  hml_long$10 n:(#<= m) s:(n * Bit)  hml_same$11 v:Bit n:(#<= m)
 *   hmn_leaf#_ value:X = HashmapNode 0 X;   hmn_fork#_ left:^(Hashmap n X) right:^(Hashmap n X) = HashmapNode (n + 1) X;
 */

/** Bits needed for a number in 0..max (TL-B's `#<= max`). */
export const bitsFor = (max: number): number => Math.ceil(Math.log2(max + 1));

/** A key as a string of '0' and '1', `bits` long. */
export const keyBits = (key: bigint, bits: number): string => BigInt.asUintN(bits, key).toString(2).padStart(bits, '0');

/** Reads an edge's label: the bits of the key it covers. */
export function readLabel(s: Slice, max: number): string {
  if (!s.loadBit()) {
    let length = 0;
    while (s.loadBit()) length += 1;
    return readBits(s, length);
  }
  if (!s.loadBit()) return readBits(s, s.loadUint(bitsFor(max)));
  const bit = s.loadBit() ? '1' : '0';
  return bit.repeat(s.loadUint(bitsFor(max)));
}

function readBits(s: Slice, length: number): string {
  let bits = '';
  for (let i = 0; i < length; i += 1) bits += s.loadBit() ? '1' : '0';
  return bits;
}

/** Writes a label in the shortest of the three forms, as the node does. */
export function writeLabel(b: Builder, bits: string, max: number): void {
  const n = bits.length;
  const width = bitsFor(max);
  const short = 2 + 2 * n;
  const long = 2 + width + n;
  const same = n > 0 && /^(0+|1+)$/.test(bits) ? 3 + width : Number.POSITIVE_INFINITY;
  if (same < short && same < long) {
    b.storeUint(0b11, 2)
      .storeBit(bits[0] === '1')
      .storeUint(n, width);
  } else if (short <= long) {
    b.storeBit(false);
    for (let i = 0; i < n; i += 1) b.storeBit(true);
    b.storeBit(false);
    for (const c of bits) b.storeBit(c === '1');
  } else {
    b.storeUint(0b10, 2).storeUint(n, width);
    for (const c of bits) b.storeBit(c === '1');
  }
}

/**
 * The leaf under `key` (a string of `n` bits) of the Hashmap rooted at `root`, as a slice
 * at its value (after `skipExtra` has read a fork's or leaf's augmentation, for HashmapAug);
 * null when the key is not there.
 */
export function hashmapLookup(root: Cell, n: number, key: string, skipExtra?: (s: Slice) => void): Slice | null {
  let cell = root;
  let offset = 0;
  for (;;) {
    const s = cell.beginParse();
    const label = readLabel(s, n - offset);
    if (key.slice(offset, offset + label.length) !== label) return null;
    offset += label.length;
    if (offset === n) {
      skipExtra?.(s);
      return s;
    }
    const left = s.loadRef();
    const right = s.loadRef();
    cell = key[offset] === '1' ? right : left;
    offset += 1;
  }
}

/**
 * Every leaf of the Hashmap rooted at `root` that is not pruned, in key order, as
 * [key bits, slice at its value]; a pruned branch (a Merkle proof's) is skipped whole.
 */
export function hashmapLeaves(root: Cell, n: number, skipExtra?: (s: Slice) => void): [string, Slice][] {
  const leaves: [string, Slice][] = [];
  const walk = (cell: Cell, prefix: string): void => {
    if (cell.isExotic) return;
    const s = cell.beginParse();
    const bits = prefix + readLabel(s, n - prefix.length);
    if (bits.length === n) {
      skipExtra?.(s);
      leaves.push([bits, s]);
      return;
    }
    const left = s.loadRef();
    const right = s.loadRef();
    walk(left, `${bits}0`);
    walk(right, `${bits}1`);
  };
  walk(root, '');
  return leaves;
}
