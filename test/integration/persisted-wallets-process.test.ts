import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSnapshotPersister } from '../../src/snapshot/persist.js';
import type { WalletRecord } from '../../src/snapshot/types.js';
import { rawAddress } from '../helpers/addresses.js';
import { freePort, startTonwatch, type RunningProcess } from '../helpers/process.js';
import { walletState } from '../helpers/wallets.js';

const WALLETS = 40_000;

/**
 * The real daemon started on a persisted snapshot of 40,000 wallets, its upstream dead:
 * walletStates answers from the file from its first request, while the whole file is
 * still being read (the readiness check says so), with what the file holds.
 */
describe('a start on a large persisted snapshot, real process', () => {
  let daemon: RunningProcess | undefined;
  afterAll(async () => {
    await daemon?.stop('SIGKILL');
  });

  let dir = '';
  let port = 0;
  let url = '';
  const records = new Map<string, WalletRecord>();
  const asked = [0, WALLETS / 2, WALLETS - 1].map((i) => rawAddress(i));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-persisted-'));
    const now = Date.now();
    for (let i = 0; i < WALLETS; i += 1) {
      const raw = rawAddress(i);
      records.set(raw, {
        raw,
        state: walletState(raw, { balance: String(1_000_000_000 + i), seqno: i }),
        addressBook: null,
        metadata: undefined,
        fetchedAt: now,
        upstream: 'u',
      });
    }
    const persister = createSnapshotPersister({ file: join(dir, 'snapshot.json'), logger: pino({ level: 'silent' }), now: Date.now });
    await persister.save({ queueSizes: null, wallets: { fetchedAt: now, wallets: records } });
    await writeFile(join(dir, 'watch.txt'), `${[...records.keys()].join('\n')}\n`);
    port = await freePort();
    await writeFile(
      join(dir, 'tonwatch.yml'),
      `listen: { host: 127.0.0.1, port: ${port} }
upstreams: [ { name: dead, url: "http://127.0.0.1:9", timeoutMs: 500 } ]
watchlistFiles: [ ./watch.txt ]
snapshot: { file: ./snapshot.json, maxAgeSeconds: 3600 }
`,
    );
    url = `http://127.0.0.1:${port}/api/v3/walletStates?${asked.map((raw) => `address=${raw}`).join('&')}`;
  });

  /** From spawn: the first 200 (a 503 "loading" comes only while the file's lines are being found), and what the readiness check says right after it. */
  async function firstAnswer(): Promise<{ body: string; readyz: string }> {
    daemon = startTonwatch(['--config', join(dir, 'tonwatch.yml')], { TONWATCH_CACHE_DIR: '' });
    for (;;) {
      const answer = await fetch(url).catch(() => null);
      if (answer?.status === 200) return { body: await answer.text(), readyz: await (await fetch(`http://127.0.0.1:${port}/readyz`)).text() };
      if (answer !== null && answer.status !== 503) throw new Error(`${answer.status}: ${await answer.text()}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  it('answers walletStates from the file before it has read all of it, as it answers once it has', async () => {
    const first = await firstAnswer();
    expect(first.readyz).toMatch(/wallets: loading the persisted snapshot/);
    const served = (JSON.parse(first.body) as { wallets: { address: string; balance: string }[] }).wallets;
    expect(served.map((w) => [w.address, w.balance])).toEqual(asked.map((raw) => [raw, records.get(raw)?.state?.balance]));
    await daemon?.waitFor(/loaded the persisted snapshot \(wallet states\)/);
    const later = await fetch(url);
    expect(later.status).toBe(200);
    expect(await later.text()).toBe(first.body);
    await daemon?.stop();
  });

  it('stops at once on SIGTERM while the file loads, and leaves the file as it was', async () => {
    const before = await readFile(join(dir, 'snapshot.wallets.json'));
    const first = await firstAnswer();
    expect(first.readyz).toMatch(/wallets: loading the persisted snapshot/);
    const { code, ms } = (await daemon?.stop('SIGTERM')) ?? { code: null, ms: Infinity };
    expect(code).toBe(0);
    // Well under the decode of the whole file (most of a second here): the stop did not wait for it.
    expect(ms).toBeLessThan(5_000);
    expect(daemon?.output()).not.toMatch(/loaded the persisted snapshot \(wallet states\)/);
    // Byte for byte (a comparison of 8 MB buffers by toEqual would take minutes).
    expect((await readFile(join(dir, 'snapshot.wallets.json'))).equals(before)).toBe(true);
    expect((await readdir(dir)).filter((name) => name.includes('broken'))).toEqual([]);
  });
});
