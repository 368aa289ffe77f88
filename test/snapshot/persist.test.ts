import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { WALLET_STATE_FIELDS } from '../../src/domain/wallet-state.js';
import { QUEUE_FILE } from '../../src/features/queue-sizes/file-format.js';
import { WALLETS_FILE } from '../../src/features/wallets/file.js';
import type { WalletsSnapshot } from '../../src/features/wallets/types.js';
import { createPersistedFile, partFile } from '../../src/snapshot/persisted-file.js';
import type { Logger } from 'pino';
import { queueSnapshot } from '../helpers/fixtures.js';
import { createLogSink } from '../helpers/log.js';
import { walletState } from '../helpers/wallets.js';
import { rawAddress } from '../helpers/addresses.js';

const NOW = 1_800_000_000_000;

const walletsFileOf = (file: string): string => partFile(file, 'wallets');

/** The two parts' files as the queue sizes and wallets features keep them: `file`, and the wallets' beside it. */
function createParts(options: { file: string; logger: Logger; now: () => number; wallOffset?: () => number }) {
  const { file, ...rest } = options;
  return {
    queue: createPersistedFile({ ...rest, file, codec: QUEUE_FILE }),
    wallets: createPersistedFile({ ...rest, file: walletsFileOf(file), codec: WALLETS_FILE }),
  };
}

describe('snapshot persistence', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-persist-'));
  });

  const persister = (file = join(dir, 'nested', 'snapshot.json')) => {
    const log = createLogSink();
    // The clock reads after every fetch time here: a time ahead of it would count as now (a wall clock stepped back).
    return { log, file, p: createParts({ file, logger: log.logger, now: () => NOW }) };
  };

  it('loads nothing when there is no file', async () => {
    expect(await persister().p.queue.load()).toBeNull();
    expect(await persister().p.wallets.load()).toBeNull();
  });

  it('round-trips both parts and leaves no temp file behind', async () => {
    const { p, file } = persister();
    const wallets: WalletsSnapshot = {
      fetchedAt: 5,
      wallets: new Map([['0:AB', { raw: '0:AB', state: null, addressBook: null, metadata: undefined, fetchedAt: 5, upstream: 'x' }]]),
    };
    await p.queue.save(queueSnapshot());
    await p.wallets.save(wallets);
    const again = persister(file).p;
    expect(await again.queue.load()).toEqual(queueSnapshot());
    expect([...((await again.wallets.load())?.wallets.values() ?? [])]).toEqual([{ raw: '0:AB', state: null, addressBook: null, fetchedAt: 5, upstream: 'x' }]);
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
    await p.wallets.save({ fetchedAt: 9, wallets: new Map(records.map((r) => [r.raw, r])) });
    const lines = readFileSync(walletsFileOf(file), 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(count + 2);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ format: 'tonwatch-snapshot', version: 6, part: 'wallets', fetchedAt: 9, records: count });
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
    const loaded = await persister(file).p.wallets.load();
    expect(loaded?.fetchedAt).toBe(9);
    expect([...(loaded?.wallets.values() ?? [])]).toEqual(records.map((r) => JSON.parse(JSON.stringify(r)) as unknown));
  });

  it('writes a part again only when it is another snapshot', async () => {
    const { p, file } = persister();
    const wallets = {
      fetchedAt: 5,
      wallets: new Map([['0:AB', { raw: '0:AB', state: null, addressBook: null, metadata: undefined, fetchedAt: 5, upstream: 'x' }]]),
    };
    await p.wallets.save(wallets);
    await p.queue.save(queueSnapshot({ fetchedAt: 1 }));
    const before = await stat(walletsFileOf(file));
    const queueBefore = await stat(file);
    await p.wallets.save(wallets);
    await p.queue.save(queueSnapshot({ fetchedAt: 2 }));
    // The wallets file is the same inode: the same snapshot is not written twice.
    expect((await stat(walletsFileOf(file))).ino).toBe(before.ino);
    expect((await stat(file)).ino).not.toBe(queueBefore.ino);
    expect((await persister(file).p.queue.load())?.fetchedAt).toBe(2);
  });

  it('loads the part that is fine when the other is broken', async () => {
    const { p, file } = persister();
    await p.queue.save(queueSnapshot());
    await p.wallets.save({ fetchedAt: 5, wallets: new Map() });
    await writeFile(walletsFileOf(file), '{"format":"tonwatch-snapshot","version":2,"part":"wallets","wallets":{"fetchedAt":5,"records":[{"raw":1}]}}');
    const again = persister(file).p;
    expect(await again.queue.load()).toEqual(queueSnapshot());
    expect(await again.wallets.load()).toBeNull();
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
    const loaded = await persister(file).p.wallets.load();
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
    await p.wallets.save({ fetchedAt: 5, wallets: new Map(records.map((r) => [r.raw, r])) });
    const lines = (await readFile(walletsFileOf(file), 'utf8')).split('\n').slice(0, -2);
    await writeFile(walletsFileOf(file), `${[(lines[0] ?? '').replace('"version":6', '"version":4'), ...lines.slice(1)].join('\n')}\n`);
    expect([...((await persister(file).p.wallets.load())?.wallets.values() ?? [])]).toEqual(records);
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
    const loaded = await persister(file).p.wallets.load();
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
    await p.wallets.save({ fetchedAt: 5, wallets: new Map(records.map((r) => [r.raw, r])) });
    const lines = (await readFile(walletsFileOf(file), 'utf8')).split('\n').slice(0, -1);
    await writeFile(walletsFileOf(file), `${damage(lines).join('\n')}\n`);
    const { p: again, log } = persister(file);
    expect(await again.wallets.load()).toBeNull();
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
    await p.wallets.save({ fetchedAt: 5, wallets: new Map([[raw, record]]) });
    expect([...((await persister(file).p.wallets.load())?.wallets.values() ?? [])]).toEqual([record]);
  });

  it('coalesces concurrent saves so the newest wins', async () => {
    const { p, file } = persister();
    const saves = [1, 2, 3, 4].map((i) => p.queue.save(queueSnapshot({ fetchedAt: i })));
    await Promise.all(saves);
    const loaded = await persister(file).p.queue.load();
    expect(loaded?.fetchedAt).toBe(4);
  });

  it.each([
    ['truncated JSON', '{"format":"tonwatch-snapshot","version":2,"queueSi'],
    ['a foreign file', '{"hello":"world"}'],
    ['an unknown version', '{"format":"tonwatch-snapshot","version":99,"part":"queue_sizes","queueSizes":null}'],
  ])('sets aside %s and starts empty', async (_name, content) => {
    const file = join(dir, 'snapshot.json');
    await writeFile(file, content);
    const { p, log } = persister(file);
    expect(await p.queue.load()).toBeNull();
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
    const stepped = createParts({ file, logger, now: () => NOW, wallOffset: () => -HOUR });
    const record = { raw: '0:AB', state: null, addressBook: null, metadata: undefined, fetchedAt: NOW - 5_000, upstream: 'x' };
    await stepped.queue.save(queueSnapshot({ fetchedAt: NOW - 5_000 }));
    await stepped.wallets.save({ fetchedAt: NOW - 5_000, wallets: new Map([['0:AB', record]]) });
    expect(JSON.parse(await readFile(file, 'utf8')).queueSizes.fetchedAt).toBe(NOW - 5_000 - HOUR);
    const walletLines = (await readFile(walletsFileOf(file), 'utf8')).trim().split('\n');
    expect(JSON.parse(walletLines[0] ?? '').fetchedAt).toBe(NOW - 5_000 - HOUR);
    expect(JSON.parse(walletLines[1] ?? '')[1]).toBe(NOW - 5_000 - HOUR);

    // Restarted a second later by the wall clock: the data is 6 s old.
    const restarted = createParts({ file, logger, now: () => NOW - HOUR + 1_000 });
    expect((await restarted.queue.load())?.fetchedAt).toBe(NOW - HOUR - 5_000);
    expect((await restarted.wallets.load())?.wallets.get('0:AB')?.fetchedAt).toBe(NOW - HOUR - 5_000);

    // Restarted after the wall clock stepped back another hour: the file's time is ahead of
    // the clock, and counts as now (fresh for maxAgeSeconds at most, not for an hour more).
    const earlier = createParts({ file, logger, now: () => NOW - 2 * HOUR });
    expect((await earlier.queue.load())?.fetchedAt).toBe(NOW - 2 * HOUR);
    const wallets = await earlier.wallets.load();
    expect(wallets?.fetchedAt).toBe(NOW - 2 * HOUR);
    expect(wallets?.wallets.get('0:AB')?.fetchedAt).toBe(NOW - 2 * HOUR);
  });
});
