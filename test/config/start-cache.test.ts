import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { openStartCache } from '../../src/config/start-cache.js';
import { startCacheDir, startCacheFile } from '../../src/config/start-cache-path.js';
import { configLoadDeps, type ProcessDeps } from '../../src/run.js';

const RAW_A = `0:${'A'.repeat(64)}`;
const RAW_B = `0:${'B'.repeat(64)}`;

let dir: string;
let cacheDir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tonwatch-start-cache-'));
  cacheDir = join(dir, 'cache');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

/** One start: the cache opened, the config loaded through it, the cache saved. */
async function start(env: Record<string, string> = {}, tonwatch = '1.0.0') {
  const path = join(dir, 'tonwatch.yml');
  const { cache, problem } = await openStartCache(cacheDir, path, tonwatch);
  const deps = { ...configLoadDeps({ env, cwd: dir } as unknown as ProcessDeps), startCache: cache };
  const { config } = await loadConfig(path, deps);
  const saved = await cache.save();
  return { config, counts: { ...cache.counts }, problem, saved };
}

const cacheText = (): string => readFileSync(startCacheFile(cacheDir, join(dir, 'tonwatch.yml')), 'latin1');

describe('the start cache', () => {
  it('keeps `${NAME}` as written, never the value it stands for', async () => {
    write('tonwatch.yml', 'upstreams: [ { name: a, url: "https://toncenter.com", apiKey: "${KEY}" } ]\nwatchlist: []\n');
    const first = await start({ KEY: 'very-secret-key' });
    expect(first.config.upstreams[0]).toMatchObject({ apiKey: 'very-secret-key' });
    expect(cacheText()).toContain('${KEY}');
    expect(cacheText()).not.toContain('very-secret-key');
    const second = await start({ KEY: 'another-key' });
    expect(second.counts).toEqual({ hits: 1, misses: 0 });
    expect(second.config.upstreams[0]).toMatchObject({ apiKey: 'another-key' });
  });

  it('does not keep a document holding a secret in clear (an API key, a password in a URL), and keeps its watchlist files', async () => {
    write('watch.txt', `${RAW_A},a\n`);
    for (const upstream of [
      '{ name: a, url: "https://toncenter.com", apiKey: "clear-secret" }',
      '{ name: a, url: "https://user:clear-secret@toncenter.com" }',
    ]) {
      write('tonwatch.yml', `upstreams: [ ${upstream} ]\nwatchlistFiles: [watch.txt]\n`);
      await start();
      expect(cacheText()).not.toContain('clear-secret');
      expect((await start()).counts).toEqual({ hits: 1, misses: 1 });
    }
    write('tonwatch.yml', 'cluster: { redis: "redis://:clear-secret@127.0.0.1:6379" }\nwatchlistFiles: [watch.txt]\n');
    await start();
    expect(cacheText()).not.toContain('clear-secret');
  });

  it("takes the schema's result for an unchanged config from the cache: the same config as a check, secrets from the environment never kept", async () => {
    write('watch.txt', `${RAW_B},b\n`);
    const yml = [
      'listen: { port: 9321, maxConnections: 50 }',
      'upstreams:',
      '  - { name: main, url: "${MAIN_URL}", apiKey: "${KEY}", rps: 20 }',
      '  - { name: spare, url: "https://toncenter.com" }',
      '  - { kind: liteserver, name: ls, liteservers: [ { host: 127.0.0.1, port: 4924, publicKey: "n4VDnSCUuSpjnCyUk9e3QOOd6o0ItSWYbTnW3Wnn8wk=" } ] }',
      'schedule: { wallets: "0 */5 * * * *" }',
      'jettons: { USDT: { master: "0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE", decimals: 6 } }',
      'watchJettons: [USDT]',
      'cluster: { redis: "${REDIS}", name: prod }',
      `watchlist:\n  - { address: "${RAW_A}", name: hot, labels: { team: ops }, minBalanceTons: 5, minJettonBalance: { USDT: 10 } }`,
      'watchlistFiles: [ { file: watch.txt, jettons: [USDT] } ]',
      'log: { level: warn }',
    ].join('\n');
    write('tonwatch.yml', `${yml}\n`);
    const env = { MAIN_URL: 'https://user:url-secret@toncenter.com/', KEY: 'key-secret', REDIS: 'redis://:redis-secret@127.0.0.1:6379/2' };
    const plain = await loadConfig(join(dir, 'tonwatch.yml'), configLoadDeps({ env, cwd: dir } as unknown as ProcessDeps));
    const first = await start(env);
    const second = await start(env);
    expect(second.saved).toBe('unchanged');
    for (const { config } of [first, second]) expect(config).toEqual(plain.config);
    for (const secret of ['url-secret', 'key-secret', 'redis-secret']) expect(cacheText()).not.toContain(secret);
    // Another value in the environment is another config: checked again, and taken.
    const changed = await start({ ...env, KEY: 'new-key', REDIS: 'redis://127.0.0.1:6380' });
    expect(changed.saved).toBe('saved');
    expect(changed.config.upstreams[0]).toMatchObject({ url: env.MAIN_URL, apiKey: 'new-key' });
    expect(changed.config.cluster?.redis).toBe('redis://127.0.0.1:6380');
    // Refused as a check refuses it, the cache notwithstanding.
    await expect(start({ ...env, REDIS: 'http://127.0.0.1:6379' })).rejects.toThrow(/redis/);
  });

  it('takes checked watchlist entries from the cache only when they take nothing from the environment', async () => {
    write('tonwatch.yml', `watchlist:\n  - { address: "${RAW_A}", name: fixed, minBalanceTons: 5 }\n  - { address: "${RAW_B}", name: "\${WHO}" }\n`);
    expect((await start({ WHO: 'first' })).config.watchlist.map((w) => w.name)).toEqual(['fixed', 'first']);
    const second = await start({ WHO: 'second' });
    expect(second.counts).toEqual({ hits: 1, misses: 0 });
    expect(second.config.watchlist.map((w) => w.name)).toEqual(['fixed', 'second']);
    write('tonwatch.yml', `watchlist:\n  - { address: "${RAW_A}", name: fixed, minBalanceTons: 5, labels: { team: ops } }\n`);
    await start();
    const kept = await start();
    expect(kept.counts).toEqual({ hits: 1, misses: 0 });
    expect(kept.config.watchlist).toEqual([
      { raw: RAW_A, name: 'fixed', labels: { team: 'ops' }, minBalanceTons: 5, jettons: undefined, minJettonBalance: undefined },
    ]);
    expect(kept.config.watchlistEntries).toEqual([{ address: RAW_A, name: 'fixed', labels: { team: 'ops' }, minBalanceTons: 5 }]);
  });

  it('is private to the user who runs tonwatch', async () => {
    write('tonwatch.yml', 'watchlist: []\n');
    await start();
    expect(statSync(startCacheFile(cacheDir, join(dir, 'tonwatch.yml'))).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
  });

  it("parses again what another tonwatch version kept, and a file whose entry's jettons changed", async () => {
    write('watch.txt', `${RAW_A},a\n${RAW_B}\n`);
    write('tonwatch.yml', 'jettons: { SIMUSD: { master: "0:' + 'C'.repeat(64) + '", decimals: 6 } }\nwatchlistFiles: [watch.txt]\n');
    await start();
    expect((await start({}, '1.0.1')).counts).toEqual({ hits: 0, misses: 2 });
    expect((await start({}, '1.0.1')).counts).toEqual({ hits: 2, misses: 0 });
    write(
      'tonwatch.yml',
      'jettons: { SIMUSD: { master: "0:' + 'C'.repeat(64) + '", decimals: 6 } }\nwatchlistFiles: [ { file: watch.txt, jettons: [SIMUSD] } ]\n',
    );
    const changed = await start({}, '1.0.1');
    expect(changed.counts).toEqual({ hits: 0, misses: 2 });
    expect(changed.config.watchlist.map((w) => w.jettons)).toEqual([['SIMUSD'], ['SIMUSD']]);
  });

  it('drops the files the config no longer names, and saves nothing when nothing changed', async () => {
    write('a.txt', `${RAW_A}\n`);
    write('b.txt', `${RAW_B}\n`);
    write('tonwatch.yml', 'watchlistFiles: [a.txt, b.txt]\n');
    expect((await start()).saved).toBe('saved');
    expect((await start()).saved).toBe('unchanged');
    write('tonwatch.yml', 'watchlistFiles: [a.txt]\n');
    expect((await start()).saved).toBe('saved');
    expect(cacheText()).not.toContain(join(dir, 'b.txt'));
    expect((await start()).counts).toEqual({ hits: 2, misses: 0 });
  });

  it('does not keep a watchlist file with a problem: the config is refused, and the next start parses it again', async () => {
    write('watch.txt', `${RAW_A}\nnot-an-address\n`);
    write('tonwatch.yml', 'watchlistFiles: [watch.txt]\n');
    await expect(start()).rejects.toThrow(/not-an-address/);
    await expect(start()).rejects.toThrow(/not-an-address/);
  });

  it('reports a cache file it cannot read, parses everything, and replaces it', async () => {
    write('watch.txt', `${RAW_A}\n`);
    write('tonwatch.yml', 'watchlistFiles: [watch.txt]\n');
    await start();
    const file = startCacheFile(cacheDir, join(dir, 'tonwatch.yml'));
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, bytes.length - 10));
    const cut = await start();
    expect(cut.problem).toMatch(/cut short|not a start cache/);
    expect(cut.counts).toEqual({ hits: 0, misses: 2 });
    expect(cut.config.watchlist.map((w) => w.raw)).toEqual([RAW_A]);
    expect((await start()).counts).toEqual({ hits: 2, misses: 0 });
    writeFileSync(file, 'garbage');
    expect((await start()).problem).not.toBeNull();
  });
});

describe('the files a start reads next', () => {
  it('are kept for the next start to read ahead, and saved again only when they change', async () => {
    write('tonwatch.yml', 'watchlist: []\n');
    const path = join(dir, 'tonwatch.yml');
    const first = (await openStartCache(cacheDir, path, '1')).cache;
    expect(first.readAhead).toEqual([]);
    first.keepReadAhead(['/data/snapshot.json', '/data/snapshot.wallets.json']);
    expect(await first.save()).toBe('saved');
    const second = (await openStartCache(cacheDir, path, '1')).cache;
    expect(second.readAhead).toEqual(['/data/snapshot.json', '/data/snapshot.wallets.json']);
    second.keepReadAhead(['/data/snapshot.json', '/data/snapshot.wallets.json']);
    expect(await second.save()).toBe('unchanged');
  });
});

describe('where the start cache is kept', () => {
  it("is $TONWATCH_CACHE_DIR (empty: nowhere), else systemd's $CACHE_DIRECTORY, else $XDG_CACHE_HOME/tonwatch, else ~/.cache/tonwatch", () => {
    expect(startCacheDir({ TONWATCH_CACHE_DIR: 'cache', HOME: '/home/u' }, '/srv')).toBe('/srv/cache');
    expect(startCacheDir({ TONWATCH_CACHE_DIR: '', HOME: '/home/u' }, '/srv')).toBeNull();
    expect(startCacheDir({ CACHE_DIRECTORY: '/var/cache/tonwatch:/var/cache/other', HOME: '/home/u' }, '/srv')).toBe('/var/cache/tonwatch');
    expect(startCacheDir({ XDG_CACHE_HOME: '/xdg', HOME: '/home/u' }, '/srv')).toBe('/xdg/tonwatch');
    expect(startCacheDir({ HOME: '/home/u' }, '/srv')).toBe('/home/u/.cache/tonwatch');
    expect(startCacheDir({}, '/srv')).toBeNull();
  });
});
