import { statSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCacheFile } from '../../src/config/start-cache-path.js';
import { eventually, startSimProcess, startTonwatch, type RunningProcess } from '../helpers/process.js';

/**
 * Restarts of the real daemon against the real simulator, its start cache in a folder of
 * the test's: what a restart takes from the cache, and that it serves what a start that
 * parses everything would, before and after the watchlist file is edited.
 */
describe('restarts through the start cache, real processes', () => {
  let sim: RunningProcess;
  let simUrl: string;
  let dir: string;
  let accounts: { raw: string }[];
  const running: RunningProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-restarts-'));
    ({ proc: sim, url: simUrl } = await startSimProcess(['--block-ms', '0', '--accounts', '40', '--seed', '8']));
    accounts = ((await (await fetch(`${simUrl}/_sim/accounts`)).json()) as { raw: string }[]).slice(0, 30);
    await writeFile(
      join(dir, 'tonwatch.yml'),
      `listen: { host: 127.0.0.1, port: 0 }
upstreams: [ { name: sim, url: "${simUrl}", rps: 100, timeoutMs: 2000 } ]
schedule: { queueSizes: "*/2 * * * * *", wallets: "* * * * * *" }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 60 }
watchlistFiles: [ ./watch.txt ]
watchlist:
  - { address: "${Address.parseRaw(accounts[0]?.raw ?? '').toString({ urlSafe: true, bounceable: true })}", name: hot, minBalanceTons: 5 }
`,
    );
  });

  afterAll(async () => {
    for (const proc of running) await proc.stop('SIGKILL');
    await sim?.stop('SIGKILL');
  });

  /** The watchlist file: every account after the first in a user-friendly form, named by `name`. */
  const writeWatchlist = (name: (i: number) => string | null): Promise<void> =>
    writeFile(
      join(dir, 'watch.txt'),
      `# deposits\n${accounts
        .slice(1)
        .flatMap((a, i) => {
          const named = name(i);
          return named === null ? [] : [`${Address.parseRaw(a.raw).toString({ urlSafe: true, bounceable: i % 2 === 0 })},${named}`];
        })
        .join('\n')}\n`,
    );

  /** One run: started, its `wallets` wallets polled, its start cache saved; the `name` label of each exported wallet, and what the start took from the cache. */
  async function run(wallets: number): Promise<{ names: Map<string, string>; startCache: unknown }> {
    const cacheFile = startCacheFile(join(dir, 'cache'), join(dir, 'tonwatch.yml'));
    const savedBefore = statSync(cacheFile, { throwIfNoEntry: false })?.mtimeMs;
    const daemon = startTonwatch(['--config', join(dir, 'tonwatch.yml')], { TONWATCH_CACHE_DIR: join(dir, 'cache') });
    running.push(daemon);
    const [line = ''] = await daemon.waitFor(/\{[^\n]*"msg":"tonwatch started"[^\n]*\}/);
    const { url, startCache } = JSON.parse(line) as { url: string; startCache: unknown };
    const names = await eventually(async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      const found = new Map([...text.matchAll(/^ton_wallet_status\{address="([^"]+)",name="([^"]+)"/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));
      return found.size === wallets ? found : undefined;
    });
    // A start that parsed something saves the cache once started up; one that parsed nothing has nothing to save.
    if ((startCache as { misses: number }).misses > 0) {
      await eventually(async () => (statSync(cacheFile, { throwIfNoEntry: false })?.mtimeMs !== savedBefore ? true : undefined));
    }
    await daemon.stop();
    return { names, startCache };
  }

  it('takes the unchanged config and watchlist file from the cache, and serves the same names; an edited file is parsed again', async () => {
    await writeWatchlist((i) => `deposit-${i}`);
    const first = await run(30);
    expect(first.startCache).toMatchObject({ hits: 0, misses: 2 });
    expect(first.names.get(accounts[0]?.raw ?? '')).toBe('hot');
    expect(first.names.get(accounts[1]?.raw ?? '')).toBe('deposit-0');

    const second = await run(30);
    expect(second.startCache).toMatchObject({ hits: 2, misses: 0 });
    expect(second.names).toEqual(first.names);

    // Renamed lines, one removed: the file is parsed again, and what is served follows the edit.
    await writeWatchlist((i) => (i === 3 ? null : i % 2 === 0 ? `renamed-${i}` : `deposit-${i}`));
    const edited = await run(29);
    expect(edited.startCache).toMatchObject({ hits: 1, misses: 1 });
    expect(edited.names.get(accounts[1]?.raw ?? '')).toBe('renamed-0');
    expect(edited.names.get(accounts[2]?.raw ?? '')).toBe('deposit-1');
    expect(edited.names.has(accounts[4]?.raw ?? '')).toBe(false);

    const again = await run(29);
    expect(again.startCache).toMatchObject({ hits: 2, misses: 0 });
    expect(again.names).toEqual(edited.names);
  });
});
