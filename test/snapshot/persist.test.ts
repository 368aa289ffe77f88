import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSnapshotPersister, walletsFileOf } from '../../src/snapshot/persist.js';
import type { Snapshot } from '../../src/snapshot/types.js';
import { queueSnapshot } from '../helpers/fixtures.js';
import { createLogSink } from '../helpers/log.js';
import { walletState } from '../helpers/wallets.js';
import { rawAddress } from '../helpers/addresses.js';

describe('snapshot persistence', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-persist-'));
  });

  const persister = (file = join(dir, 'nested', 'snapshot.json')) => {
    const log = createLogSink();
    return { log, file, p: createSnapshotPersister({ file, logger: log.logger, now: () => 42 }) };
  };

  it('loads nothing when there is no file', async () => {
    expect(await persister().p.load()).toBeNull();
  });

  it('round-trips a snapshot and leaves no temp file behind', async () => {
    const { p, file } = persister();
    const snapshot: Snapshot = {
      queueSizes: queueSnapshot(),
      wallets: {
        fetchedAt: 5,
        wallets: new Map([['0:AB', { raw: '0:AB', state: null, addressBook: null, metadata: undefined, fetchedAt: 5, upstream: 'x' }]]),
      },
    };
    await p.save(snapshot);
    const loaded = await persister(file).p.load();
    expect(loaded?.queueSizes).toEqual(snapshot.queueSizes);
    expect([...(loaded?.wallets?.wallets.values() ?? [])]).toEqual([{ raw: '0:AB', state: null, addressBook: null, fetchedAt: 5, upstream: 'x' }]);
    expect((await readdir(join(dir, 'nested'))).sort()).toEqual(['snapshot.json', 'snapshot.wallets.json']);
  });

  it.each([0, 1000, 1001, 2500])('round-trips %d wallets, written in pieces, as one valid JSON file', async (count) => {
    const { p, file } = persister();
    const records = Array.from({ length: count }, (_, i) => {
      const raw = rawAddress(i);
      return {
        raw,
        state: walletState(raw, { seqno: i }),
        addressBook: { user_friendly: `UQ${i}`, domain: null, interfaces: ['wallet_v4r2'] },
        metadata: i % 2 ? { is_indexed: true } : undefined,
        fetchedAt: 5 + i,
        upstream: 'x',
      };
    });
    await p.save({ queueSizes: null, wallets: { fetchedAt: 9, wallets: new Map(records.map((r) => [r.raw, r])) } });
    expect(() => JSON.parse(readFileSync(walletsFileOf(file), 'utf8')) as unknown).not.toThrow();
    const loaded = await persister(file).p.load();
    expect(loaded?.wallets?.fetchedAt).toBe(9);
    expect([...(loaded?.wallets?.wallets.values() ?? [])]).toEqual(records.map((r) => JSON.parse(JSON.stringify(r)) as unknown));
  });

  it('rewrites only the part that changed', async () => {
    const { p, file } = persister();
    const wallets = {
      fetchedAt: 5,
      wallets: new Map([['0:AB', { raw: '0:AB', state: null, addressBook: null, metadata: undefined, fetchedAt: 5, upstream: 'x' }]]),
    };
    await p.save({ queueSizes: queueSnapshot({ fetchedAt: 1 }), wallets });
    const before = await stat(walletsFileOf(file));
    const queueBefore = await stat(file);
    await p.save({ queueSizes: queueSnapshot({ fetchedAt: 2 }), wallets });
    // The wallets file is the same inode: not rewritten for a queue-size poll.
    expect((await stat(walletsFileOf(file))).ino).toBe(before.ino);
    expect((await stat(file)).ino).not.toBe(queueBefore.ino);
    expect((await persister(file).p.load())?.queueSizes?.fetchedAt).toBe(2);
  });

  it('loads the part that is fine when the other is broken', async () => {
    const { p, file } = persister();
    await p.save({ queueSizes: queueSnapshot(), wallets: { fetchedAt: 5, wallets: new Map() } });
    await writeFile(walletsFileOf(file), '{"format":"tonwatch-snapshot","version":2,"part":"wallets","wallets":{"fetchedAt":5,"records":[{"raw":1}]}}');
    const loaded = await persister(file).p.load();
    expect(loaded?.queueSizes).toEqual(queueSnapshot());
    expect(loaded?.wallets).toBeNull();
  });

  it('coalesces concurrent saves so the newest wins', async () => {
    const { p, file } = persister();
    const saves = [1, 2, 3, 4].map((i) => p.save({ queueSizes: queueSnapshot({ fetchedAt: i }), wallets: null }));
    await Promise.all(saves);
    const loaded = await persister(file).p.load();
    expect(loaded?.queueSizes?.fetchedAt).toBe(4);
  });

  it.each([
    ['truncated JSON', '{"format":"tonwatch-snapshot","version":2,"queueSi'],
    ['a foreign file', '{"hello":"world"}'],
    ['an unknown version', '{"format":"tonwatch-snapshot","version":99,"part":"queue_sizes","queueSizes":null}'],
  ])('sets aside %s and starts empty', async (_name, content) => {
    const file = join(dir, 'snapshot.json');
    await writeFile(file, content);
    const { p, log } = persister(file);
    expect(await p.load()).toBeNull();
    const files = await readdir(dir);
    expect(files).toEqual(['snapshot.json.broken-42']);
    expect(await readFile(join(dir, 'snapshot.json.broken-42'), 'utf8')).toBe(content);
    expect(log.text()).toMatch(/moved aside/);
  });
});
