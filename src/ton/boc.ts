import type { Cell } from '@ton/core';

/**
 * A bag of cells with several roots, as a liteserver's proofs come (`@ton/core` writes one
 * root only). The plain format: no index, no CRC, cells deduplicated by hash, parents
 * before children. For cells of level 0 only (ordinary cells and Merkle proofs of them):
 * what the simulator builds; pruned branches are refused.
 */

function paddedBits(cell: Cell): Buffer {
  const length = cell.bits.length;
  const bytes = Buffer.alloc(Math.ceil(length / 8));
  for (let i = 0; i < length; i += 1) if (cell.bits.at(i)) bytes[i >> 3] = (bytes[i >> 3] ?? 0) | (0x80 >> (i & 7));
  // A length that is not a whole number of bytes ends with a 1 bit, then zeros.
  if (length % 8 !== 0) bytes[length >> 3] = (bytes[length >> 3] ?? 0) | (0x80 >> (length & 7));
  return bytes;
}

export function serializeRoots(roots: readonly Cell[]): Buffer {
  const keyOf = (cell: Cell): string => cell.hash().toString('hex');
  // Every distinct cell once, by hash.
  const order: Cell[] = [];
  const seen = new Set<string>();
  const visit = (cell: Cell): void => {
    if (cell.level() !== 0) throw new Error('serializeRoots writes level-0 cells only');
    if (seen.has(keyOf(cell))) return;
    seen.add(keyOf(cell));
    order.push(cell);
    for (const ref of cell.refs) visit(ref);
  };
  for (const root of roots) visit(root);
  // Topological order: a cell's position after every parent's (Kahn's algorithm over the deduplicated graph).
  const parents = new Map<string, number>();
  for (const cell of order) for (const ref of cell.refs) parents.set(keyOf(ref), (parents.get(keyOf(ref)) ?? 0) + 1);
  const ready = order.filter((c) => !parents.has(keyOf(c)));
  const sorted: Cell[] = [];
  const seenEdges = new Set<string>();
  while (ready.length > 0) {
    const cell = ready.shift() as Cell;
    sorted.push(cell);
    cell.refs.forEach((ref, i) => {
      const edge = `${keyOf(cell)}:${i}`;
      if (seenEdges.has(edge)) return;
      seenEdges.add(edge);
      const key = keyOf(ref);
      const left = (parents.get(key) ?? 0) - 1;
      parents.set(key, left);
      if (left === 0) ready.push(ref);
    });
  }
  const index = new Map(sorted.map((cell, i) => [keyOf(cell), i]));
  const refSize = Math.max(1, Math.ceil(Math.log2(sorted.length + 1) / 8));
  const bodies = sorted.map((cell) => {
    const data = paddedBits(cell);
    const d1 = cell.refs.length + (cell.isExotic ? 8 : 0);
    const d2 = Math.ceil(cell.bits.length / 8) + Math.floor(cell.bits.length / 8);
    const refs = Buffer.alloc(cell.refs.length * refSize);
    cell.refs.forEach((ref, i) => refs.writeUIntBE(index.get(keyOf(ref)) ?? 0, i * refSize, refSize));
    return Buffer.concat([Buffer.from([d1, d2]), data, refs]);
  });
  const total = bodies.reduce((n, b) => n + b.length, 0);
  const offSize = Math.max(1, Math.ceil(Math.log2(total + 1) / 8));
  const header = Buffer.alloc(4 + 1 + 1);
  header.writeUInt32BE(0xb5ee9c72);
  header[4] = refSize;
  header[5] = offSize;
  const counts = Buffer.alloc(refSize * 3);
  counts.writeUIntBE(sorted.length, 0, refSize);
  counts.writeUIntBE(roots.length, refSize, refSize);
  counts.writeUIntBE(0, 2 * refSize, refSize);
  const totalBytes = Buffer.alloc(offSize);
  totalBytes.writeUIntBE(total, 0, offSize);
  const rootList = Buffer.alloc(roots.length * refSize);
  roots.forEach((root, i) => rootList.writeUIntBE(index.get(keyOf(root)) ?? 0, i * refSize, refSize));
  return Buffer.concat([header, counts, totalBytes, rootList, ...bodies]);
}
