import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/domain/config.js';
import type { QueueSizesAnswer } from '../../src/domain/upstream.js';
import { WALLETS_FILE } from '../../src/features/wallets/file.js';
import { OWN_METRICS_REUSE_MS } from '../../src/metrics/registry.js';
import { coreRoutes, routeTable } from '../../src/serve/routes.js';
import { partFile } from '../../src/snapshot/persisted-file.js';
import { configFrom } from '../helpers/config.js';
import { clientStub, featureHarness } from '../helpers/features.js';
import { queueSnapshot } from '../helpers/fixtures.js';
import { bodyText, readBody } from '../helpers/response.js';
import { ADDR, record, walletState, walletsSnapshot } from '../helpers/wallets.js';

/** The route table of the core and every feature, its handlers called directly on data the features polled from a stub. */

const NOW = 1_755_815_026_462;
const FETCHED = NOW - 2_000;

const QUEUE: QueueSizesAnswer = {
  shards: queueSnapshot().shards.map((s) => ({
    id: { workchain: s.workchain, shard: s.shard, seqno: s.seqno, root_hash: s.rootHash, file_hash: s.fileHash },
    size: s.size,
  })),
  ext_msg_queue_size_limit: 8000,
  extra: undefined,
};

const client = clientStub({
  fetchQueueSizes: () => Promise.resolve({ ok: true, value: { value: QUEUE, upstream: 'toncenter', fetchedAt: FETCHED } }),
  fetchWalletStates: (addresses) =>
    Promise.resolve({
      ok: true,
      value: { value: { wallets: addresses.map((raw) => walletState(raw)), address_book: {}, metadata: {} }, upstream: 'toncenter', fetchedAt: FETCHED },
    }),
});

const configWith = (extra = '', watched: readonly string[] = [ADDR.a]): Promise<Config> =>
  configFrom(`upstreams: [{ name: toncenter, url: "https://toncenter.com" }]\nwatchlist: [${watched.map((a) => `{ address: "${a}" }`).join(', ')}]\n${extra}`);

/** The features on `config`, with both polls run once (unless `polled` is false). */
async function polled(config: Config, options: { polled?: boolean; nextRunAt?: Record<string, number> } = {}) {
  const harness = featureHarness({ config, client, now: () => NOW, nextRunAt: options.nextRunAt ?? {} });
  if (options.polled !== false) {
    await harness.run('queue_sizes');
    if (config.watchlist.length > 0) await harness.run('wallets');
  }
  return harness;
}

describe('the route table', () => {
  it('serves every documented path, each under its own endpoint label', async () => {
    const { routes } = await polled(await configWith());
    expect(Object.fromEntries([...routes].map(([path, route]) => [path, route.endpoint]))).toEqual({
      '/api/v3/walletStates': 'wallet_states',
      '/api/v3/jetton/wallets': 'jetton_wallets',
      '/api/v2/getOutMsgQueueSizes': 'queue_sizes',
      '/api/v2/getOutMsgQueueSize': 'queue_sizes',
      '/api/v2/jsonRPC': 'json_rpc',
      '/metrics': 'metrics',
      '/healthz': 'healthz',
      '/readyz': 'readyz',
      '/': 'index',
      '/api/status': 'status',
      '/api/status/sections': 'status',
      '/api/status/wallets': 'status',
      '/assets/status.css': 'asset',
      '/assets/favicon.svg': 'asset',
      '/assets/client.js': 'asset',
    });
  });

  it('refuses a path two parts route, when it is built', () => {
    const core = coreRoutes({
      metrics: { contentType: 'text/plain', render: () => Promise.reject(new Error('not rendered')) },
      maxMetricsRequests: () => 0,
      notReady: () => [],
      v2Methods: () => ({}),
    });
    expect(() => routeTable([core, [['/metrics', { endpoint: 'mine', handle: () => ({ status: 200, headers: {}, body: '' }) }]]])).toThrow(
      'two routes for /metrics',
    );
  });

  it('limits /metrics alone, to maxMetricsRequests of the config in force', async () => {
    const harness = await polled(await configWith());
    expect(harness.routes.get('/metrics')?.maxInFlight?.()).toBe(40);
    harness.reload(await configWith('listen: { maxMetricsRequests: 3 }'), client);
    expect(harness.routes.get('/metrics')?.maxInFlight?.()).toBe(3);
    for (const path of ['/api/v3/walletStates', '/api/v2/getOutMsgQueueSizes', '/healthz', '/readyz', '/']) {
      expect(harness.routes.get(path)?.maxInFlight).toBeUndefined();
    }
  });

  it('answers both v2 spellings with the same bytes, max-age running to the queue poll', async () => {
    const { call } = await polled(await configWith(), { nextRunAt: { queue_sizes: NOW + 3_000, wallets: NOW + 20_000 } });
    const plural = await call('/api/v2/getOutMsgQueueSizes');
    const singular = await call('/api/v2/getOutMsgQueueSize');
    expect(plural.status).toBe(200);
    expect(bodyText(singular)).toBe(bodyText(plural));
    expect(plural.headers['cache-control']).toBe('max-age=3');
  });

  it('answers walletStates from the watched wallets only, max-age running to the wallet poll', async () => {
    const harness = await polled(await configWith(), { nextRunAt: { queue_sizes: NOW + 3_000, wallets: NOW + 20_000 } });
    const watched = await harness.call('/api/v3/walletStates', 'GET', `address=${ADDR.a}`);
    expect(JSON.parse(bodyText(watched)).wallets).toHaveLength(1);
    expect(watched.headers['cache-control']).toBe('max-age=20');
    // The config is read per request: after a reload that drops the wallet, it is not served.
    harness.reload(await configWith('', [ADDR.b]), client);
    const unwatched = await harness.call('/api/v3/walletStates', 'GET', `address=${ADDR.a}`);
    expect(JSON.parse(bodyText(unwatched)).wallets).toEqual([]);
  });

  it('serves /metrics with the exposition content type, GET and HEAD only', async () => {
    const { call } = await polled(await configWith());
    const metrics = await call('/metrics');
    expect(metrics.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = (await readBody(metrics)).toString();
    expect(text).toContain('ton_out_msg_queue_size{workchain="0",shard="4000000000000000"} 2000');
    expect(text).toContain(`ton_wallet_balance_tons{address="${ADDR.a}"`);
    const post = await call('/metrics', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
  });

  it('serves /metrics in gzip to a client that accepts it, the same text as identity, with Vary either way', async () => {
    let clock = NOW;
    const harness = featureHarness({ config: await configWith(), client, now: () => clock });
    await harness.run('queue_sizes');
    await harness.run('wallets');
    const identity = await harness.call('/metrics');
    // What a scrape records about itself shows in readings made after OWN_METRICS_REUSE_MS.
    clock += OWN_METRICS_REUSE_MS;
    const gzipped = await harness.call('/metrics', 'GET', '', true);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(identity.headers['vary']).toBe('Accept-Encoding');
    expect(gzipped.headers['vary']).toBe('Accept-Encoding');
    // One gzip stream of concatenated members; the chain series come out byte for byte.
    const text = gunzipSync(Buffer.concat(gzipped.body as Buffer[])).toString('utf8');
    const chain = (body: string) => body.slice(0, body.indexOf('# HELP tonwatch_'));
    expect(chain(text)).toBe(chain((await readBody(identity)).toString()));
    expect(chain(text)).toContain('ton_out_msg_queue_size{workchain="0",shard="4000000000000000"} 2000');
    expect(text).toContain('tonwatch_metrics_response_size_bytes{encoding="identity"}');
  });

  it('is ready only with fresh queue sizes, and fresh wallets when any are watched', async () => {
    const harness = await polled(await configWith(), { polled: false });
    await harness.run('queue_sizes');
    const notReady = await harness.call('/readyz');
    expect(notReady.status).toBe(503);
    expect(JSON.parse(bodyText(notReady))).toEqual({ ready: false, reasons: ['wallets: no snapshot yet'] });
    harness.reload(await configWith('', []), client);
    expect((await harness.call('/readyz')).status).toBe(200);
    expect((await harness.call('/healthz')).status).toBe(200);
  });

  it('says what is still loading from disk: not ready, and walletStates 503 with a short Retry-After', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-routes-'));
    const file = join(dir, 'snapshot.json');
    // 20,000 wallets: long enough a read that the first requests come while it goes on.
    const many = Array.from({ length: 20_000 }, (_, i) => `0:${i.toString(16).toUpperCase().padStart(64, '0')}`);
    const text = WALLETS_FILE.encode(
      walletsSnapshot([record(ADDR.a, walletState(ADDR.a), FETCHED), ...many.map((raw) => record(raw, walletState(raw), FETCHED))], FETCHED),
      0,
    );
    await writeFile(partFile(file, 'wallets'), typeof text === 'string' ? text : Buffer.concat([...(text as Iterable<Uint8Array>)]));
    const harness = await polled(await configWith(`snapshot: { file: "${file}" }`), { polled: false });
    await harness.run('queue_sizes');
    await harness.set.load();
    expect(JSON.parse(bodyText(await harness.call('/readyz')))).toEqual({ ready: false, reasons: ['wallets: loading the persisted snapshot'] });
    const v3 = await harness.call('/api/v3/walletStates', 'GET', `address=${ADDR.a}`);
    expect(v3.status).toBe(503);
    expect(JSON.parse(bodyText(v3))).toEqual({ error: 'the wallet snapshot is still loading from disk' });
    expect(v3.headers['retry-after']).toBe('1');
    // The queue sizes are served meanwhile.
    expect((await harness.call('/api/v2/getOutMsgQueueSizes')).status).toBe(200);
    await expect.poll(async () => (await harness.call('/readyz')).status, { timeout: 20_000 }).toBe(200);
    expect(JSON.parse(bodyText(await harness.call('/api/v3/walletStates', 'GET', `address=${ADDR.a}`))).wallets).toHaveLength(1);
  });

  it('escapes what it shows on the status page, and sends it with a Content-Security-Policy that allows only its own origin', async () => {
    const config = await configFrom(
      `upstreams: [{ name: "a-b", url: "https://x.example/?q=%22%3Cscript%3E" }]\nwatchlist: [{ address: "${ADDR.a}", name: "<b>hot</b>" }]\n`,
    );
    const harness = featureHarness({ config, client, now: () => NOW });
    await harness.run('queue_sizes');
    await harness.run('wallets');
    const answer = await harness.call('/');
    const page = bodyText(answer);
    expect(page).toContain('&lt;b&gt;hot&lt;/b&gt;');
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<b>hot');
    expect(page).not.toMatch(/style="/);
    expect(page).toContain('1 watched');
    expect(answer.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self';/);
    // The search form finds a wallet by name without JavaScript.
    const found = bodyText(await harness.call('/', 'GET', `q=${encodeURIComponent('<b>hot')}`));
    expect(found).toContain('1 match');
  });

  it('serves /api/status: every shard with its size and level, the history, the wallets and the upstreams', async () => {
    const { call } = await polled(await configWith());
    const status = JSON.parse(bodyText(await call('/api/status')));
    expect(status.queue.shards.map((s: { size: number }) => s.size)).toEqual(QUEUE.shards.map((s) => s.size));
    expect(status.queue.shards[0]).toMatchObject({ workchain: -1, shard: '8000000000000000', level: 'ok' });
    expect(status.history.series.length).toBe(QUEUE.shards.length);
    expect(status.wallets).toMatchObject({ watched: 1, attention: 0 });
    expect(status.upstreams.map((u: { name: string }) => u.name)).toEqual(['toncenter']);
    const wallets = JSON.parse(bodyText(await call('/api/status/wallets', 'GET', `q=${ADDR.a}`)));
    expect(wallets).toMatchObject({ total: 1, page: 1, pages: 1 });
    expect(wallets.rows[0].address).toBe(ADDR.a);
  });
});
