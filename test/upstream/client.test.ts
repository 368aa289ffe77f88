import { MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { UpstreamSettings } from '../../src/domain/config.js';
import type { HttpUpstreamSettings } from '../../src/upstream/http/settings.js';
import type { FailureKind } from '../../src/sim/failures.js';
import { createUpstreamClient, type UpstreamClientDeps } from '../../src/upstream/client.js';
import { createLogSink } from '../helpers/log.js';
import { startSim, type RunningSim } from '../helpers/sim.js';

function clientFor(upstreams: UpstreamSettings[], extra: Partial<UpstreamClientDeps> = {}) {
  const requests: { upstream: string; query: string; code: string }[] = [];
  const log = createLogSink();
  const client = createUpstreamClient({
    upstreams,
    retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 100 },
    logger: log.logger,
    observer: { request: (upstream, query, code) => requests.push({ upstream, query, code }), skipped: () => undefined },
    now: () => Date.now(),
    userAgent: 'tonwatch-test',
    random: () => 0.5,
    ...extra,
  });
  return { client, requests, log };
}

const upstream = (name: string, url: string, more: Partial<Omit<HttpUpstreamSettings, 'kind'>> = {}): HttpUpstreamSettings => ({
  kind: 'http',
  name,
  url,
  rps: 1000,
  timeoutMs: 1500,
  ...more,
});

describe('upstream client against the simulator', () => {
  let python: RunningSim;
  let cpp: RunningSim;
  beforeAll(async () => {
    python = await startSim({ style: 'python', hangMs: 3000 });
    cpp = await startSim({ style: 'cpp', seed: 2 });
  });
  afterAll(async () => {
    await python.stop();
    await cpp.stop();
  });

  it('reads @extra from inside result (Python server)', async () => {
    const { client } = clientFor([upstream('py', python.url)]);
    const result = await client.fetchQueueSizes();
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.upstream).toBe('py');
    expect(result.value.value.extra).toMatch(/^\d+\.\d+:\d+:/);
    expect(result.value.value.shards[0]?.id).toMatchObject({ '@type': 'ton.blockIdExt', workchain: -1, shard: '-9223372036854775808' });
    expect(result.value.value.ext_msg_queue_size_limit).toBe(8000);
  });

  it('falls back to the singular path on a 404 and remembers it (C++ server)', async () => {
    const { client, requests, log } = clientFor([upstream('cpp', cpp.url)]);
    const first = await client.fetchQueueSizes();
    expect(first.ok).toBe(true);
    if (first.ok) expect(first.value.value.extra).toMatch(/^\d+\.\d+:0:/);
    expect(requests.map((r) => r.code)).toEqual(['404', '200']);
    expect(log.text()).toMatch(/other v2 path spelling/);
    await client.fetchQueueSizes();
    expect(requests.map((r) => r.code)).toEqual(['404', '200', '200']);
  });

  const expectations: [FailureKind, string, string][] = [
    ['timeout', 'timeout', 'timeout'],
    ['reset', 'network', 'network'],
    ['http_500', 'http_5xx', '500'],
    ['http_503', 'http_5xx', '503'],
    ['http_504', 'http_5xx', '504'],
    ['http_542', 'http_5xx', '542'],
    ['rate_limited', 'rate_limited', '429'],
    ['rate_limited_result', 'rate_limited', '429'],
    ['html_502', 'http_5xx', '502'],
    ['truncated', 'bad_body', 'bad_body'],
    ['bad_schema', 'bad_body', 'bad_body'],
    ['ok_false', 'upstream_error', 'upstream_error'],
  ];
  it.each(expectations)('classifies %s as %s (metric code %s)', async (kind, code, metricCode) => {
    const { client, requests } = clientFor([upstream('py', python.url)]);
    python.sim.http.inject(kind, 1);
    const result = await client.fetchQueueSizes();
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe(code);
    expect(result.error.details).toMatchObject({ upstream: 'py', query: 'queue_sizes' });
    expect(requests).toEqual([{ upstream: 'py', query: 'queue_sizes', code: metricCode }]);
    if (kind === 'rate_limited') expect(result.error.message).toContain('Ratelimit exceeded');
    if (kind === 'rate_limited_result') expect(result.error.message).toContain('Ratelimit exceed');
    if (kind === 'html_502') expect(result.error.message).toContain('502 Bad Gateway');
  });

  it('retries with backoff after a failure and succeeds', async () => {
    const { client, requests } = clientFor([upstream('py', python.url)], { retry: { attempts: 3, baseDelayMs: 20, maxDelayMs: 200 } });
    python.sim.http.inject('http_503', 2);
    const result = await client.fetchQueueSizes();
    expect(result.ok).toBe(true);
    expect(requests.map((r) => r.code)).toEqual(['503', '503', '200']);
  });

  it('fails over to the next upstream in order', async () => {
    const { client, requests } = clientFor([upstream('dead', 'http://127.0.0.1:9'), upstream('py', python.url)]);
    const result = await client.fetchQueueSizes();
    expect(result.ok && result.value.upstream).toBe('py');
    expect(requests.map((r) => `${r.upstream}:${r.code}`)).toEqual(['dead:network', 'py:200']);
  });

  it('aborts in-flight requests when the caller aborts', async () => {
    const { client } = clientFor([upstream('py', python.url, { timeoutMs: 10_000 })]);
    python.sim.http.inject('timeout', 1);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutdown')), 100);
    const started = Date.now();
    const result = await client.fetchQueueSizes(controller.signal);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(!result.ok && result.error.code).toBe('aborted');
  });
});

describe('upstream client with a MockAgent', () => {
  const body = JSON.stringify({
    ok: true,
    result: {
      '@type': 'blocks.outMsgQueueSizes',
      shards: [
        {
          '@type': 'blocks.outMsgQueueSize',
          id: {
            '@type': 'ton.blockIdExt',
            workchain: -1,
            shard: '-9223372036854775808',
            seqno: 1,
            root_hash: 'aa5DrbypWLx+3hICy5IOusAsMB8LA+JY41tjUtlYVhQ=',
            file_hash: 'Yd96kDamNL490591/O2unVWv9FUrkANnso8ZMwEHtqU=',
          },
          size: 0,
        },
      ],
      ext_msg_queue_size_limit: 8000,
    },
  });

  it('sends the API key as X-API-Key and never logs it', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    let seenKey: unknown;
    agent
      .get('https://toncenter.example')
      .intercept({ path: '/api/v2/getOutMsgQueueSizes', method: 'GET' })
      .reply(500, (opts) => {
        seenKey = (opts.headers as Record<string, string>)['x-api-key'];
        return { ok: false, error: 'boom', code: 500 };
      });
    const { client, log } = clientFor([upstream('tc', 'https://toncenter.example', { apiKey: 'secret-key-123' })], { dispatcher: agent });
    const result = await client.fetchQueueSizes();
    expect(result.ok).toBe(false);
    expect(seenKey).toBe('secret-key-123');
    expect(log.text()).not.toContain('secret-key-123');
    if (!result.ok) expect(JSON.stringify(result.error) + result.error.message).not.toContain('secret-key-123');
  });

  it('honours Retry-After before asking again', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get('https://toncenter.example');
    pool
      .intercept({ path: '/api/v2/getOutMsgQueueSizes' })
      .reply(429, { ok: false, code: 429, error: 'Ratelimit exceeded' }, { headers: { 'retry-after': '1' } });
    pool.intercept({ path: '/api/v2/getOutMsgQueueSizes' }).reply(200, body);
    const { client, requests } = clientFor([upstream('tc', 'https://toncenter.example')], {
      dispatcher: agent,
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 5000 },
    });
    // On fake time: the second request waits for the second the 429 asked for, not a millisecond less.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const pending = client.fetchQueueSizes();
      await vi.advanceTimersByTimeAsync(999);
      expect(requests.map((r) => r.code)).toEqual(['429']);
      await vi.advanceTimersByTimeAsync(1);
      const result = await pending;
      expect(result.ok).toBe(true);
      expect(requests.map((r) => r.code)).toEqual(['429', '200']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('accepts @extra at the top level, inside result, or absent', async () => {
    const parsed = JSON.parse(body) as { ok: true; result: Record<string, unknown> };
    const shapes: [string, unknown, string | undefined][] = [
      ['top level (C++ server)', { ...parsed, '@extra': 'top:0:1' }, 'top:0:1'],
      ['inside result (Python server)', { ...parsed, result: { ...parsed.result, '@extra': 'inner:0:1' } }, 'inner:0:1'],
      ['both: inside result wins', { ...parsed, result: { ...parsed.result, '@extra': 'inner:0:1' }, '@extra': 'top:0:1' }, 'inner:0:1'],
      ['absent', parsed, undefined],
    ];
    for (const [name, shape, expected] of shapes) {
      const agent = new MockAgent();
      agent.disableNetConnect();
      agent.get('https://t.example').intercept({ path: '/api/v2/getOutMsgQueueSizes' }).reply(200, JSON.stringify(shape));
      const { client } = clientFor([upstream('t', 'https://t.example')], { dispatcher: agent });
      const result = await client.fetchQueueSizes();
      expect(result.ok, name).toBe(true);
      expect(result.ok && result.value.value.extra, name).toBe(expected);
    }
  });
});
