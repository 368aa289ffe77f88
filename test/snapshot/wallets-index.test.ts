import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WalletRecord } from '../../src/snapshot/types.js';
import { decodeWalletsBytes, encodeWallets } from '../../src/snapshot/wallets-file.js';
import { indexWalletsBytes, offerFileWallets } from '../../src/snapshot/wallets-index.js';
import type { WalletsLookup } from '../../src/snapshot/types.js';
import { linesByPosition } from '../../src/snapshot/wallets-lines.js';
import { rawAddress } from '../helpers/addresses.js';
import { walletState } from '../helpers/wallets.js';

/** Records of every kind a file holds: states or none, repeated and new values, address books, metadata. */
function records(count: number): WalletRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const raw = rawAddress(i);
    return {
      raw,
      state:
        i % 7 === 3
          ? null
          : walletState(i % 11 === 0 ? rawAddress(i + 1) : raw, {
              seqno: i,
              status: i % 5 === 0 ? 'uninit' : 'active',
              code_hash: i % 3 === 0 ? `hash${i % 4}` : 'common',
            }),
      addressBook:
        i % 4 === 1 ? null : { user_friendly: `UQ${i}`, domain: i % 9 === 0 ? `w${i}.ton` : null, interfaces: i % 2 === 0 ? ['wallet_v4r2'] : ['wallet_v5r1'] },
      metadata: i % 6 === 0 ? { is_indexed: i % 12 === 0 } : undefined,
      fetchedAt: 1_000 + (i % 13),
      upstream: i % 8 === 0 ? 'second' : 'first',
    };
  });
}

const toProcess = (wall: number): number => wall - 500;

function fileOf(list: readonly WalletRecord[]): Buffer {
  return Buffer.concat([...encodeWallets({ fetchedAt: 2_000, wallets: new Map(list.map((r) => [r.raw, r])) }, 0)]);
}

describe('a version 5 wallets file, read a record at a time', () => {
  const list = records(2500);
  const bytes = fileOf(list);

  it('gives every record as reading the whole file does, whether the guessed line is right, wrong or missing', async () => {
    const whole = await decodeWalletsBytes(bytes, toProcess);
    if (!whole.ok) throw new Error(whole.problem);
    const places = new Map(list.map((r, i) => [r.raw, i]));
    for (const placeOf of [(raw: string) => places.get(raw), (raw: string) => ((places.get(raw) ?? 0) * 7) % list.length, () => undefined]) {
      const lookup = indexWalletsBytes(bytes, toProcess, placeOf);
      expect(lookup?.fetchedAt).toBe(whole.wallets.fetchedAt);
      // In another order than the file's.
      for (const record of [...list].reverse()) expect(lookup?.wallets.get(record.raw)).toEqual(whole.wallets.wallets.get(record.raw));
    }
  });

  it('has nothing for a wallet the file does not hold', () => {
    const lookup = indexWalletsBytes(bytes, toProcess, () => 0);
    expect(lookup?.wallets.get(rawAddress(999_999))).toBeUndefined();
    expect(lookup?.wallets.get('0:AB')).toBeUndefined();
  });

  it('is not made for an older version or a file whose lines do not add up (the whole file is read, and refused, instead)', () => {
    const lines = bytes.toString('utf8').split('\n').slice(0, -1);
    const v4 = [(lines[0] ?? '').replace('"version":5', '"version":4'), ...lines.slice(1, -1)];
    expect(indexWalletsBytes(Buffer.from(`${v4.join('\n')}\n`), toProcess)).toBeNull();
    expect(indexWalletsBytes(Buffer.from(`${lines.slice(0, -1).join('\n')}\n`), toProcess)).toBeNull();
    expect(indexWalletsBytes(Buffer.from(`${[...lines.slice(0, 3), ...lines.slice(4)].join('\n')}\n`), toProcess)).toBeNull();
    expect(indexWalletsBytes(Buffer.from(`${[...lines.slice(0, -1), '{"references":'].join('\n')}\n`), toProcess)).toBeNull();
    expect(indexWalletsBytes(Buffer.from('not json\n'), toProcess)).toBeNull();
  });

  it('has nothing for a record line that cannot be read, and still gives the others', () => {
    const lines = bytes.toString('utf8').split('\n');
    lines[2] = (lines[2] ?? '').replace(/^\["([^"]+)",/, '["$1","not a time",');
    const lookup = indexWalletsBytes(Buffer.from(lines.join('\n')), toProcess);
    expect(lookup?.wallets.get(list[1]?.raw ?? '')).toBeUndefined();
    expect(lookup?.wallets.get(list[2]?.raw ?? '')).toMatchObject({ raw: list[2]?.raw, fetchedAt: toProcess(list[2]?.fetchedAt ?? 0) });
  });
});

describe("a version 5 wallets file giving its lines' lengths, read by position", () => {
  const dir = mkdtempSync(join(tmpdir(), 'tonwatch-wallet-lines-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const list = records(2500);
  const bytes = fileOf(list);
  let written = 0;
  function fileWith(content: Buffer | string): string {
    const file = join(dir, `wallets-${(written += 1)}.json`);
    writeFileSync(file, content);
    return file;
  }

  /** What offerFileWallets offers before the file is read whole, if anything, and its handle for the rest. */
  async function offeredBefore(file: string, placeOf: (raw: string) => number | undefined) {
    let offered: (() => WalletsLookup | null) | null = null;
    const reading = await offerFileWallets(file, toProcess, placeOf, (index) => (offered = index));
    return { lookup: (offered as (() => WalletsLookup | null) | null)?.() ?? null, reading };
  }

  it('gives every record before the file is read whole, as reading it whole does, whether the guessed line is right, wrong or missing', async () => {
    const whole = await decodeWalletsBytes(bytes, toProcess);
    if (!whole.ok) throw new Error(whole.problem);
    const places = new Map(list.map((r, i) => [r.raw, i]));
    for (const placeOf of [(raw: string) => places.get(raw), (raw: string) => ((places.get(raw) ?? 0) * 7) % list.length, () => undefined]) {
      const { lookup, reading } = await offeredBefore(fileWith(bytes), placeOf);
      expect(lookup?.fetchedAt).toBe(whole.wallets.fetchedAt);
      for (const record of [...list].reverse()) expect(lookup?.wallets.get(record.raw)).toEqual(whole.wallets.wallets.get(record.raw));
      expect(lookup?.wallets.get(rawAddress(999_999))).toBeUndefined();
      await reading.close();
    }
  });

  it('reads the lines where the lengths put them: the first, the last, one between', async () => {
    const handle = await open(fileWith(bytes), 'r');
    const lines = await linesByPosition(handle);
    const text = bytes.toString('utf8').split('\n');
    expect(lines?.count).toBe(list.length);
    for (const line of [0, 1234, list.length - 1]) {
      expect(lines?.lineAt(line).toString('utf8')).toBe(text[line + 1]);
      expect(lines?.keyAt(line)).toBe(list[line]?.raw);
    }
    await handle.close();
  });

  it("offers nothing before the whole read when the lengths are missing or are not this file's, and the whole bytes then", async () => {
    const text = bytes.toString('utf8').split('\n');
    const last = JSON.parse(text.at(-2) ?? '') as { references: unknown[]; lineBytes: string };
    const withLast = (line: string): string => [...text.slice(0, -2), line, ''].join('\n');
    const lengths = Buffer.from(last.lineBytes, 'base64');
    lengths.writeUInt32LE(lengths.readUInt32LE(8) + 1, 8);
    for (const content of [
      withLast(JSON.stringify({ references: last.references })),
      withLast(JSON.stringify({ references: last.references, lineBytes: lengths.toString('base64') })),
      withLast(JSON.stringify({ references: last.references, lineBytes: last.lineBytes.slice(8) })),
      // A record line longer than written, the total kept: the lines' lengths do not add up to the file's.
      [text[0], `${text[1]} `, ...text.slice(2)].join('\n'),
    ]) {
      const file = fileWith(content);
      let offered: (() => WalletsLookup | null) | null = null;
      const reading = await offerFileWallets(
        file,
        toProcess,
        () => 0,
        (index) => (offered = index),
      );
      expect(offered).toBeNull();
      reading.haveBytes(Buffer.from(content));
      expect((offered as (() => WalletsLookup | null) | null)?.()?.wallets.get(list[5]?.raw ?? '')).toMatchObject({ raw: list[5]?.raw });
      await reading.close();
    }
  });

  it('offers nothing for a file that is not there', async () => {
    let offered = false;
    const reading = await offerFileWallets(
      join(dir, 'absent.json'),
      toProcess,
      () => 0,
      () => (offered = true),
    );
    expect(offered).toBe(false);
    await reading.close();
  });
});
