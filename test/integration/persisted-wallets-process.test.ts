import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALLETS_FILE } from '../../src/features/wallets/file.js';
import { createPersistedFile } from '../../src/snapshot/persisted-file.js';
import type { WalletRecord } from '../../src/accounts/types.js';
import { rawAddress } from '../helpers/addresses.js';
import { freePort, startTonwatch, type RunningProcess } from '../helpers/process.js';
import { walletState } from '../helpers/wallets.js';

const WALLETS = 40_000;

/**
 * The real daemon started on a persisted snapshot of 40,000 wallets, its upstream dead:
 * while the file is read the readiness check says so (and walletStates answers 503 with
 * Retry-After: 1), then walletStates answers what the file holds; a stop meanwhile does
 * not wait for the read.
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
    const persisted = createPersistedFile({ file: join(dir, 'snapshot.wallets.json'), codec: WALLETS_FILE, logger: pino({ level: 'silent' }), now: Date.now });
    await persisted.save({ fetchedAt: now, wallets: records });
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

  /** From spawn: the readiness check's first answer that says the wallets file is being read. */
  async function whileLoading(): Promise<string> {
    daemon = startTonwatch(['--config', join(dir, 'tonwatch.yml')]);
    for (;;) {
      const answer = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
      const text = answer === null ? '' : await answer.text();
      if (/wallets: loading the persisted snapshot/.test(text)) return text;
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  it('says it is loading while it reads the file, then answers walletStates with what the file holds', async () => {
    await whileLoading();
    const meanwhile = await fetch(url);
    if (meanwhile.status !== 200) {
      expect(meanwhile.status).toBe(503);
      expect(meanwhile.headers.get('retry-after')).toBe('1');
    }
    await daemon?.waitFor(/loaded the persisted snapshot \(wallet states\)/);
    const later = await fetch(url);
    expect(later.status).toBe(200);
    const served = ((await later.json()) as { wallets: { address: string; balance: string }[] }).wallets;
    expect(served.map((w) => [w.address, w.balance])).toEqual(asked.map((raw) => [raw, records.get(raw)?.state?.balance]));
    await daemon?.stop();
  });

  it('stops at once on SIGTERM while the file loads, and leaves the file as it was', async () => {
    const before = await readFile(join(dir, 'snapshot.wallets.json'));
    await whileLoading();
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
