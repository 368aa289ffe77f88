import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { WALLET_STATE_FIELDS } from '../../src/domain/wallet-state.js';
import { createSnapshotPersister, walletsFileOf } from '../../src/snapshot/persist.js';
import type { Snapshot } from '../../src/snapshot/types.js';
import { queueSnapshot } from '../helpers/fixtures.js';
import { createLogSink } from '../helpers/log.js';
import { walletState } from '../helpers/wallets.js';
import { rawAddress } from '../helpers/addresses.js';

const NOW = 1_800_000_000_000;

describe('snapshot persistence', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-persist-'));
  });

  const persister = (file = join(dir, 'nested', 'snapshot.json')) => {
    const log = createLogSink();
    // The clock reads after every fetch time here: a time ahead of it would count as now (a wall clock stepped back).
    return { log, file, p: createSnapshotPersister({ file, logger: log.logger, now: () => NOW }) };
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

  it.each([0, 1000, 1001, 2500])('round-trips %d wallets, written in pieces, a header line, a JSON line per record, the references line', async (count) => {
    const { p, file } = persister();
    const records = Array.from({ length: count }, (_, i) => {
      const raw = rawAddress(i);
      return {
        raw,
        state: walletState(raw, { seqno: i }),
        // Not all ASCII: a domain in another script makes a part's bytes more than its characters.
        addressBook: { user_friendly: `UQ${i}`, domain: i % 7 === 3 ? `кошелёк-${i}.ton` : null, interfaces: ['wallet_v4r2'] },
        metadata: i % 2 ? { is_indexed: true } : undefined,
        fetchedAt: 5 + i,
        upstream: 'x',
      };
    });
    await p.save({ queueSizes: null, wallets: { fetchedAt: 9, wallets: new Map(records.map((r) => [r.raw, r])) } });
    const lines = readFileSync(walletsFileOf(file), 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(count + 2);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ format: 'tonwatch-snapshot', version: 5, part: 'wallets', fetchedAt: 9, records: count });
    for (const line of lines.slice(1, -1)) expect(Array.isArray(JSON.parse(line))).toBe(true);
    // What the references stand for, in number order: the upstream, then each state's code hash, status and wallet type, then the address book's other fields.
    const first = records[0]?.state;
    const referenced = first === undefined ? [] : ['x', first.code_hash, first.status, first.wallet_type, { interfaces: ['wallet_v4r2'] }];
    const last = JSON.parse(lines.at(-1) ?? '') as { references: unknown[]; lineBytes: string };
    expect(last.references).toEqual(referenced.filter((value) => value !== null));
    // Each record line's length in bytes, its newline included, as little-endian 32-bit numbers.
    const lineBytes = Buffer.from(last.lineBytes, 'base64');
    expect(Array.from({ length: lineBytes.length / 4 }, (_, i) => lineBytes.readUInt32LE(4 * i))).toEqual(
      lines.slice(1, -1).map((line) => Buffer.byteLength(line) + 1),
    );
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

  it('reads a version 2 wallets file (one document), as earlier versions wrote it', async () => {
    const { file } = persister();
    const raw = rawAddress(1);
    const record = { raw, state: walletState(raw, { seqno: 3 }), addressBook: null, fetchedAt: 5, upstream: 'x' };
    await mkdir(join(dir, 'nested'), { recursive: true });
    await writeFile(
      walletsFileOf(file),
      `${JSON.stringify({ format: 'tonwatch-snapshot', version: 2, part: 'wallets', wallets: { fetchedAt: 5, records: [record] } })}\n`,
    );
    const loaded = await persister(file).p.loadWallets();
    expect([...(loaded?.wallets.values() ?? [])]).toEqual([record]);
  });

  it('reads a version 4 wallets file (no references line), as the previous version wrote it', async () => {
    const { p, file } = persister();
    const records = [1, 2, 3].map((i) => ({
      raw: rawAddress(i),
      state: walletState(rawAddress(i), { seqno: i }),
      addressBook: null,
      fetchedAt: 5,
      upstream: `u${i % 2}`,
      metadata: undefined,
    }));
    await p.save({ queueSizes: null, wallets: { fetchedAt: 5, wallets: new Map(records.map((r) => [r.raw, r])) } });
    const lines = (await readFile(walletsFileOf(file), 'utf8')).split('\n').slice(0, -2);
    await writeFile(walletsFileOf(file), `${[(lines[0] ?? '').replace('"version":5', '"version":4'), ...lines.slice(1)].join('\n')}\n`);
    expect([...((await persister(file).p.loadWallets())?.wallets.values() ?? [])]).toEqual(records);
  });

  it('reads a version 3 wallets file (no references), as an earlier version wrote it', async () => {
    const { file } = persister();
    const records = [1, 2].map((i) => {
      const raw = rawAddress(i);
      return {
        raw,
        state: walletState(raw, { seqno: i }),
        // Not all ASCII: a domain in another script makes a part's bytes more than its characters.
        addressBook: { user_friendly: `UQ${i}`, domain: i % 7 === 3 ? `кошелёк-${i}.ton` : null, interfaces: ['wallet_v4r2'] },
        fetchedAt: 5,
        upstream: 'x',
      };
    });
    const header = {
      format: 'tonwatch-snapshot',
      version: 3,
      part: 'wallets',
      fetchedAt: 5,
      records: 2,
      columns: ['raw', 'fetchedAt', 'upstream', 'state', 'addressBook', 'metadata'],
      stateColumns: WALLET_STATE_FIELDS.map((f) => f.name),
    };
    const rows = records.map((r) => [r.raw, r.fetchedAt, r.upstream, WALLET_STATE_FIELDS.map((f) => r.state[f.name]), r.addressBook]);
    await mkdir(join(dir, 'nested'), { recursive: true });
    await writeFile(walletsFileOf(file), [header, ...rows].map((line) => `${JSON.stringify(line)}\n`).join(''));
    const loaded = await persister(file).p.loadWallets();
    expect([...(loaded?.wallets.values() ?? [])]).toEqual(records);
  });

  it.each([
    ['a record line that is not JSON', (lines: string[]) => [...lines.slice(0, 2), '["0:AB",', ...lines.slice(3)], /not valid JSON on line 3/],
    ['a record of the wrong shape', (lines: string[]) => [...lines.slice(0, 2), '"0:AB"', ...lines.slice(3)], /line 3: not a record/],
    ['a line after the references', (lines: string[]) => [...lines.slice(0, 2), '{"raw":"0:AB"}', ...lines.slice(3)], /line 4: a line after the references/],
    ['no references line (cut short)', (lines: string[]) => lines.slice(0, -1), /ends before the line of its references/],
    ['a field of the wrong kind', (lines: string[]) => [lines[0] ?? '', (lines[1] ?? '').replace('"x"', 'true'), ...lines.slice(2)], /line 2: upstream/],
    [
      'a reference to no value written before',
      (lines: string[]) => [...lines.slice(0, 2), (lines[2] ?? '').replace(',5,0,', ',5,9,'), ...lines.slice(3)],
      /line 3: 9 refers to no value written before/,
    ],
    ['fewer records than the header announces', (lines: string[]) => [...lines.slice(0, -2), lines.at(-1) ?? ''], /announces 3 records, the file holds 2/],
    [
      'columns of another version',
      (lines: string[]) => [(lines[0] ?? '').replace('"metadata"', '"meta"'), ...lines.slice(1)],
      /columns written by another version/,
    ],
  ])('sets aside a wallets file with %s, saying where', async (_name, damage, message) => {
    const { p, file } = persister();
    const records = [1, 2, 3].map((i) => ({
      raw: rawAddress(i),
      state: walletState(rawAddress(i)),
      addressBook: null,
      metadata: undefined,
      fetchedAt: 5,
      upstream: 'x',
    }));
    await p.save({ queueSizes: null, wallets: { fetchedAt: 5, wallets: new Map(records.map((r) => [r.raw, r])) } });
    const lines = (await readFile(walletsFileOf(file), 'utf8')).split('\n').slice(0, -1);
    await writeFile(walletsFileOf(file), `${damage(lines).join('\n')}\n`);
    const { p: again, log } = persister(file);
    expect(await again.loadWallets()).toBeNull();
    expect(log.text()).toMatch(message);
    expect((await readdir(join(dir, 'nested'))).some((f) => f.startsWith('snapshot.wallets.json.broken-'))).toBe(true);
  });

  it('keeps a state whose address is not the record key as it was written', async () => {
    const { p, file } = persister();
    const raw = rawAddress(1);
    const record = {
      raw,
      state: walletState(rawAddress(2)),
      addressBook: { user_friendly: null, domain: 'a.ton', more: [1] },
      metadata: null,
      fetchedAt: 5,
      upstream: 'x',
    };
    await p.save({ queueSizes: null, wallets: { fetchedAt: 5, wallets: new Map([[raw, record]]) } });
    expect([...((await persister(file).p.loadWallets())?.wallets.values() ?? [])]).toEqual([record]);
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
    expect(files).toEqual([`snapshot.json.broken-${NOW}`]);
    expect(await readFile(join(dir, `snapshot.json.broken-${NOW}`), 'utf8')).toBe(content);
    expect(log.text()).toMatch(/moved aside/);
  });
});

describe('snapshot persistence across wall clock steps', () => {
  it('writes wall time, reads it back onto the process clock, and takes a time ahead of the clock as now', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-persist-clock-'));
    const file = join(dir, 'snapshot.json');
    const logger = createLogSink().logger;
    const HOUR = 3_600_000;
    // The wall clock stepped back an hour since this process started: wall = process time - 1 h.
    const stepped = createSnapshotPersister({ file, logger, now: () => NOW, wallOffset: () => -HOUR });
    const record = { raw: '0:AB', state: null, addressBook: null, metadata: undefined, fetchedAt: NOW - 5_000, upstream: 'x' };
    await stepped.save({ queueSizes: queueSnapshot({ fetchedAt: NOW - 5_000 }), wallets: { fetchedAt: NOW - 5_000, wallets: new Map([['0:AB', record]]) } });
    expect(JSON.parse(await readFile(file, 'utf8')).queueSizes.fetchedAt).toBe(NOW - 5_000 - HOUR);
    const walletLines = (await readFile(walletsFileOf(file), 'utf8')).trim().split('\n');
    expect(JSON.parse(walletLines[0] ?? '').fetchedAt).toBe(NOW - 5_000 - HOUR);
    expect(JSON.parse(walletLines[1] ?? '')[1]).toBe(NOW - 5_000 - HOUR);

    // Restarted a second later by the wall clock: the data is 6 s old.
    const restarted = createSnapshotPersister({ file, logger, now: () => NOW - HOUR + 1_000 });
    expect((await restarted.loadQueueSizes())?.fetchedAt).toBe(NOW - HOUR - 5_000);
    expect((await restarted.loadWallets())?.wallets.get('0:AB')?.fetchedAt).toBe(NOW - HOUR - 5_000);

    // Restarted after the wall clock stepped back another hour: the file's time is ahead of
    // the clock, and counts as now (fresh for maxAgeSeconds at most, not for an hour more).
    const earlier = createSnapshotPersister({ file, logger, now: () => NOW - 2 * HOUR });
    expect((await earlier.loadQueueSizes())?.fetchedAt).toBe(NOW - 2 * HOUR);
    const wallets = await earlier.loadWallets();
    expect(wallets?.fetchedAt).toBe(NOW - 2 * HOUR);
    expect(wallets?.wallets.get('0:AB')?.fetchedAt).toBe(NOW - 2 * HOUR);
  });
});
