import { describe, expect, it } from 'vitest';
import { decodeWalletsBytes, encodeWallets } from '../../src/features/wallets/file.js';
import { record, walletState, walletsSnapshot } from '../helpers/wallets.js';

const raw = (i: number) => `0:${i.toString(16).toUpperCase().padStart(64, '0')}`;

describe('the wallets file of a map a replica adds to while it is written', () => {
  it('holds the records the map held when the write began, and decodes', async () => {
    const snapshot = walletsSnapshot(Array.from({ length: 2500 }, (_, i) => record(raw(i), walletState(raw(i)))));
    const parts: Buffer[] = [];
    const writing = encodeWallets(snapshot, 0);
    // The header and the first thousand records, then a wallet arrives, as between two writes of the file.
    for (let i = 0; i < 2; i += 1) parts.push(writing.next().value as Buffer);
    (snapshot.wallets as Map<string, ReturnType<typeof record>>).set(raw(9999), record(raw(9999), walletState(raw(9999))));
    for (const part of writing) parts.push(part);
    const decoded = await decodeWalletsBytes(Buffer.concat(parts), (wall) => wall);
    if (!decoded.ok) throw new Error(decoded.problem);
    expect(decoded.wallets.wallets.size).toBe(2500);
    expect(decoded.wallets.wallets.has(raw(9999))).toBe(false);
    expect(decoded.wallets.wallets.get(raw(2499))?.state?.address).toBe(raw(2499));
  });
});
