import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createMetricsExposition } from '../../src/metrics/exposition.js';
import { createSelfMetrics, OWN_METRICS_REUSE_MS } from '../../src/metrics/registry.js';
import { createRoutes, type ServeSettings } from '../../src/serve/routes.js';
import type { Route } from '../../src/serve/server.js';
import type { QueryName } from '../../src/domain/queries.js';
import type { Snapshot } from '../../src/snapshot/types.js';
import { queueSnapshot } from '../helpers/fixtures.js';
import { bodyText, readBody } from '../helpers/response.js';
import { ADDR, record, walletState, walletsSnapshot } from '../helpers/wallets.js';
import { healthStub } from '../helpers/health.js';
import { createLogSink } from '../helpers/log.js';
import { createQueueHistory } from '../../src/features/queue-sizes/history.js';
import { createUpstreamHealth } from '../../src/features/status-page/upstream-health.js';

/** The route table, called directly: which handler answers which path, with what it reads per request. */

const FETCHED = 1_755_815_024_462;
const NOW = FETCHED + 2_000;

function routesWith(options: {
  snapshot: Snapshot;
  settings: ServeSettings;
  nextPollDueAt?: Partial<Record<QueryName, number>>;
  loading?: readonly QueryName[];
}) {
  let settings = options.settings;
  const history = createQueueHistory();
  if (options.snapshot.queueSizes) history.record(options.snapshot.queueSizes);
  // The self metrics' clock: a reading of them is reused for OWN_METRICS_REUSE_MS.
  let selfClock = NOW;
  const self = createSelfMetrics({
    version: 't',
    nodeVersion: 'v20',
    defaultMetrics: false,
    now: () => selfClock,
    health: healthStub({ snapshotAgeSeconds: () => 2, lastSuccessAt: () => FETCHED, watchlistSize: () => settings.watched.size }),
  });
  const metrics = createMetricsExposition({ self, snapshot: () => options.snapshot, now: () => NOW, maxAgeSeconds: () => settings.maxAgeSeconds });
  const routes = createRoutes({
    version: '9.9.9',
    now: () => NOW,
    snapshot: () => options.snapshot,
    settings: () => settings,
    loading: () => options.loading ?? [],
    nextPollDueAt: (query) => options.nextPollDueAt?.[query] ?? null,
    metrics,
    logger: createLogSink().logger,
    status: () => ({
      version: '9.9.9',
      now: NOW,
      snapshot: options.snapshot,
      maxAgeSeconds: settings.maxAgeSeconds,
      testnet: settings.testnet,
      watchlist: [...(settings.watched as ReadonlySet<string>)].map((raw) => ({
        raw,
        name: `wallet-${raw.slice(2, 6)}`,
        labels: {},
        minBalanceTons: undefined,
      })),
      upstreams: settings.upstreams,
      upstreamHealth: createUpstreamHealth(),
      lags: new Map(),
      history,
    }),
  });
  const route = (path: string): Route => {
    const found = routes.get(path);
    if (!found) throw new Error(`no route for ${path}`);
    return found;
  };
  const call = async (path: string, method = 'GET', query = '', acceptsGzip = false) =>
    route(path).handle({ method, path, query, acceptsGzip: () => acceptsGzip });
  return { routes, route, call, reload: (next: ServeSettings) => (settings = next), advanceSelfClock: (ms: number) => (selfClock += ms) };
}

const SETTINGS: ServeSettings = {
  maxAgeSeconds: 300,
  testnet: false,
  watched: new Set([ADDR.a]),
  upstreams: [{ name: 'toncenter', url: 'https://toncenter.com' }],
  maxMetricsRequests: 40,
  readThrough: { enabled: false, ttlSeconds: 10 },
};
const FULL: Snapshot = { queueSizes: queueSnapshot(), wallets: walletsSnapshot([record(ADDR.a, walletState(ADDR.a), FETCHED)], FETCHED) };

describe('routes', () => {
  it('serves every documented path, each under its own endpoint label', () => {
    const { routes } = routesWith({ snapshot: FULL, settings: SETTINGS });
    expect(Object.fromEntries([...routes].map(([path, route]) => [path, route.endpoint]))).toEqual({
      '/api/v3/walletStates': 'wallet_states',
      '/api/v2/getOutMsgQueueSizes': 'queue_sizes',
      '/api/v2/getOutMsgQueueSize': 'queue_sizes',
      '/api/v2/jsonRPC': 'json_rpc',
      '/metrics': 'metrics',
      '/healthz': 'healthz',
      '/readyz': 'readyz',
      '/': 'index',
      '/api/status': 'status',
      '/api/status/wallets': 'status',
      '/assets/status.css': 'asset',
      '/assets/favicon.svg': 'asset',
      '/assets/client.js': 'asset',
      '/assets/render.js': 'asset',
    });
  });

  it('limits /metrics alone, to maxMetricsRequests of the config in force', () => {
    const { route, reload } = routesWith({ snapshot: FULL, settings: SETTINGS });
    expect(route('/metrics').maxInFlight?.()).toBe(40);
    reload({ ...SETTINGS, maxMetricsRequests: 3 });
    expect(route('/metrics').maxInFlight?.()).toBe(3);
    for (const path of ['/api/v3/walletStates', '/api/v2/getOutMsgQueueSizes', '/healthz', '/readyz', '/']) expect(route(path).maxInFlight).toBeUndefined();
  });

  it('answers both v2 spellings with the same bytes, max-age running to the queue poll', async () => {
    const { call } = routesWith({ snapshot: FULL, settings: SETTINGS, nextPollDueAt: { queue_sizes: NOW + 3_000, wallets: NOW + 20_000 } });
    const plural = await call('/api/v2/getOutMsgQueueSizes');
    const singular = await call('/api/v2/getOutMsgQueueSize');
    expect(plural.status).toBe(200);
    expect(bodyText(singular)).toBe(bodyText(plural));
    expect(plural.headers['cache-control']).toBe('max-age=3');
  });

  it('answers walletStates from the watched wallets only, max-age running to the wallet poll', async () => {
    const { call, reload } = routesWith({ snapshot: FULL, settings: SETTINGS, nextPollDueAt: { queue_sizes: NOW + 3_000, wallets: NOW + 20_000 } });
    const watched = await call('/api/v3/walletStates', 'GET', `address=${ADDR.a}`);
    expect(JSON.parse(bodyText(watched)).wallets).toHaveLength(1);
    expect(watched.headers['cache-control']).toBe('max-age=20');
    // The settings are read per request: after a reload that drops the wallet, it is not served.
    reload({ ...SETTINGS, watched: new Set([ADDR.b]) });
    const unwatched = await call('/api/v3/walletStates', 'GET', `address=${ADDR.a}`);
    expect(JSON.parse(bodyText(unwatched)).wallets).toEqual([]);
  });

  it('serves /metrics with the exposition content type, GET and HEAD only', async () => {
    const { call } = routesWith({ snapshot: FULL, settings: SETTINGS });
    const metrics = await call('/metrics');
    expect(metrics.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect((await readBody(metrics)).toString()).toContain('ton_out_msg_queue_size{workchain="0",shard="4000000000000000"} 2000');
    const post = await call('/metrics', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
  });

  it('serves /metrics in gzip to a client that accepts it, the same text as identity, with Vary either way', async () => {
    const { call, advanceSelfClock } = routesWith({ snapshot: FULL, settings: SETTINGS });
    const identity = await call('/metrics');
    // What a scrape records about itself shows in readings made after OWN_METRICS_REUSE_MS.
    advanceSelfClock(OWN_METRICS_REUSE_MS);
    const gzipped = await call('/metrics', 'GET', '', true);
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
    const noWallets = routesWith({ snapshot: { ...FULL, wallets: null }, settings: SETTINGS });
    const notReady = await noWallets.call('/readyz');
    expect(notReady.status).toBe(503);
    expect(JSON.parse(bodyText(notReady))).toEqual({ ready: false, reasons: ['wallets: no snapshot yet'] });
    noWallets.reload({ ...SETTINGS, watched: new Set() });
    expect((await noWallets.call('/readyz')).status).toBe(200);
    expect((await noWallets.call('/healthz')).status).toBe(200);
  });

  it('says what is still loading from disk: not ready, and walletStates 503 with a short Retry-After', async () => {
    const { call } = routesWith({ snapshot: { ...FULL, wallets: null }, settings: SETTINGS, loading: ['wallets'], nextPollDueAt: { wallets: NOW + 30_000 } });
    expect(JSON.parse(bodyText(await call('/readyz')))).toEqual({ ready: false, reasons: ['wallets: loading the persisted snapshot'] });
    const v3 = await call('/api/v3/walletStates', 'GET', `address=${ADDR.a}`);
    expect(v3.status).toBe(503);
    expect(JSON.parse(bodyText(v3))).toEqual({ error: 'the wallet snapshot is still loading from disk' });
    expect(v3.headers['retry-after']).toBe('1');
    // The queue sizes are served meanwhile.
    expect((await call('/api/v2/getOutMsgQueueSizes')).status).toBe(200);
  });

  it('escapes what it shows on the status page, and sends it with a Content-Security-Policy that allows only its own origin', async () => {
    const { call } = routesWith({ snapshot: FULL, settings: { ...SETTINGS, upstreams: [{ name: 'a<b', url: 'https://x.example/?q="<script>' }] } });
    const answer = await call('/');
    const page = bodyText(answer);
    expect(page).toContain('a&lt;b');
    expect(page).not.toContain('<script>');
    expect(page).not.toMatch(/style="/);
    expect(page).toContain('1 watched');
    expect(answer.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self';/);
    // The search form finds a wallet by name without JavaScript.
    const found = bodyText(await call('/', 'GET', `q=wallet-${ADDR.a.slice(2, 6)}`));
    expect(found).toContain('1 match');
  });

  it('serves /api/status: every shard with its size and level, the history, the wallets and the upstreams', async () => {
    const { call } = routesWith({ snapshot: FULL, settings: SETTINGS });
    const status = JSON.parse(bodyText(await call('/api/status')));
    expect(status.queue.shards.map((s: { size: number }) => s.size)).toEqual(FULL.queueSizes?.shards.map((s) => s.size));
    expect(status.queue.shards[0]).toMatchObject({ workchain: -1, shard: '8000000000000000', level: 'ok' });
    expect(status.history.series.length).toBe(FULL.queueSizes?.shards.length);
    expect(status.wallets).toMatchObject({ watched: 1, attention: 0 });
    expect(status.upstreams.map((u: { name: string }) => u.name)).toEqual(['toncenter']);
    const wallets = JSON.parse(bodyText(await call('/api/status/wallets', 'GET', `q=${ADDR.a}`)));
    expect(wallets).toMatchObject({ total: 1, page: 1, pages: 1 });
    expect(wallets.rows[0].address).toBe(ADDR.a);
  });
});
