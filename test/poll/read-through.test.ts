import { Agent, fetch as undiciFetch } from 'undici';
import { clientStub } from '../helpers/features.js';
import { describe, expect, it } from 'vitest';
import type { UpstreamClient } from '../../src/domain/upstream.js';
import { createBatchSize } from '../../src/accounts/batches.js';
import { createReadThrough, type ReadThroughAnswer, type ReadThroughResult, type ReadThroughLimits } from '../../src/features/read-through/read-through.js';
import { createUpstreamClient } from '../../src/upstream/client.js';
import { createLogSink } from '../helpers/log.js';
import { startReadThroughDaemon } from '../helpers/read-through-daemon.js';
import { stoppedAfterEach, type RunningSim } from '../helpers/sim.js';

/**
 * Read-through against the simulator: coalescing, the cache and its expiry, unknown
 * accounts, the bounds, failures; and the load test: 200 clients at once through the real
 * daemon, the upstream at 2 rps.
 */

const UNKNOWN = `0:${'AB'.repeat(32)}`;

interface Harness {
  readonly readThrough: ReturnType<typeof createReadThrough>;
  readonly counts: Record<ReadThroughResult, number>;
  /** Addresses per walletStates call the upstream saw. */
  readonly calls: number[];
  setNow(ms: number): void;
}

function harness(sim: RunningSim, settings: Partial<ReadThroughLimits> = {}, upstream: { timeoutMs?: number } = {}): Harness {
  let clock = 1_000_000;
  const calls: number[] = [];
  const real = createUpstreamClient({
    upstreams: [{ kind: 'http', name: 'sim', url: sim.url, rps: 100, timeoutMs: upstream.timeoutMs ?? 2000 }],
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    logger: createLogSink().logger,
    observer: { request: () => undefined, skipped: () => undefined },
    now: () => clock,
    userAgent: 'test',
  });
  const client: UpstreamClient = {
    ...clientStub(),
    fetchTips: (signal) => real.fetchTips(signal),
    fetchJettonWallets: (owners, master, page, signal) => real.fetchJettonWallets(owners, master, page, signal),
    fetchJettonMetadata: () => Promise.reject(new Error('not used')),
    fetchQueueSizes: (signal) => real.fetchQueueSizes(signal),
    close: () => real.close(),
    fetchWalletStates: (addresses, signal, purpose) => {
      calls.push(addresses.length);
      return real.fetchWalletStates(addresses, signal, purpose);
    },
  };
  const counts: Record<ReadThroughResult, number> = { hit: 0, fetched: 0, coalesced: 0, unknown: 0, refused: 0 };
  const batchSize = createBatchSize(1000, () => clock);
  const readThrough = createReadThrough({
    client: () => client,
    batchSize: () => batchSize,
    settings: () => ({ ttlSeconds: 10, maxPendingAddresses: 10_000, timeoutMs: 2000, ...settings }),
    now: () => clock,
    logger: createLogSink().logger,
    count: (result, n) => (counts[result] += n),
  });
  return { readThrough, counts, calls, setNow: (ms) => (clock = ms) };
}

const settled = async (answer: ReadThroughAnswer | Promise<ReadThroughAnswer>) => answer;

describe('read-through', () => {
  const running = stoppedAfterEach();
  const sim = (options: Parameters<typeof running.sim>[0] = {}) => running.sim(options);

  it('coalesces: one address asked by a thousand lookups at once costs one address in one batch, and others asked meanwhile share the next', async () => {
    const s = await sim();
    const h = harness(s);
    const [a, b, c] = s.sim.wallets.accounts().map((x) => x.raw);
    const first = Array.from({ length: 1000 }, () => h.readThrough.lookup([a ?? '']));
    const more = [h.readThrough.lookup([b ?? '', a ?? '']), h.readThrough.lookup([c ?? '', b ?? ''])];
    const answers = await Promise.all([...first, ...more].map(settled));
    expect(answers.every((x) => x.ok)).toBe(true);
    expect(h.calls).toEqual([1, 2]);
    expect(h.counts).toMatchObject({ fetched: 3, coalesced: 999 + 1 + 1, hit: 0, unknown: 0 });
  });

  it('serves from the cache for ttlSeconds (synchronously), remembers unknown accounts as unknown, and asks again after expiry', async () => {
    const s = await sim();
    const h = harness(s, { ttlSeconds: 10 });
    const known = s.sim.wallets.accounts()[0]?.raw ?? '';
    const first = await settled(h.readThrough.lookup([known, UNKNOWN]));
    expect(first.ok && first.records.get(known)?.state?.address).toBe(known);
    expect(first.ok && first.records.get(UNKNOWN)?.state).toBeNull();
    expect(h.counts).toMatchObject({ fetched: 1, unknown: 1 });
    h.setNow(1_000_000 + 9_999);
    const cached = h.readThrough.lookup([known, UNKNOWN]);
    expect(cached instanceof Promise).toBe(false);
    expect(h.counts.hit).toBe(2);
    expect(h.calls).toEqual([2]);
    expect(h.readThrough.size).toBe(2);
    h.setNow(1_000_000 + 10_000);
    await settled(h.readThrough.lookup([known, UNKNOWN]));
    expect(h.calls).toEqual([2, 2]);
  });

  it('refuses past maxPendingAddresses (503, Retry-After), without queueing any of the refused request', async () => {
    const s = await sim();
    const h = harness(s, { maxPendingAddresses: 5 });
    const raws = s.sim.wallets.accounts().map((x) => x.raw);
    const waiting = h.readThrough.lookup(raws.slice(0, 4));
    const refused = h.readThrough.lookup(raws.slice(4, 6));
    expect(refused).toEqual({ ok: false, status: 503, error: expect.stringMatching(/maxPendingAddresses 5/) as unknown, retryAfterSeconds: 1 });
    expect(h.counts.refused).toBe(2);
    expect((await settled(waiting)).ok).toBe(true);
    expect(h.calls).toEqual([4]);
  });

  it('answers 503 when the upstream fails and 504 when it does not answer in time; neither is cached', async () => {
    const s = await sim({ hangMs: 1500 });
    const h = harness(s, { timeoutMs: 300 }, { timeoutMs: 1000 });
    const raw = s.sim.wallets.accounts()[0]?.raw ?? '';
    s.sim.http.inject('http_503', 1);
    const failed = await settled(h.readThrough.lookup([raw]));
    expect(failed).toMatchObject({ ok: false, status: 503, error: expect.stringMatching(/http_5xx/) as unknown });
    s.sim.http.inject('timeout', 1);
    const slow = await settled(h.readThrough.lookup([raw]));
    expect(slow).toMatchObject({ ok: false, status: 504 });
    // The next ask, once the hanging batch has given up (its upstream's 1 s timeout), is fetched and answered.
    await expect.poll(async () => (await settled(h.readThrough.lookup([raw]))).ok, { timeout: 5_000, interval: 100 }).toBe(true);
  });

  it('through the daemon: an upstream failure is a 503 envelope for the unwatched request, and the daemon stays healthy', async () => {
    const s = await sim({ seed: 6 });
    const [watched, unwatched] = s.sim.wallets.accounts().map((a) => a.raw);
    // Polled once at start, then not within the test: the injected failure is the read-through's.
    const url = await startReadThroughDaemon((daemon) => running.track(daemon), {
      simUrl: s.url,
      rps: 50,
      timeoutMs: 2000,
      schedule: '{ queueSizes: "0 0 0 1 1 *", wallets: "0 0 0 1 1 *" }',
      readThrough: '{ enabled: true }',
      watched: [watched as string],
      logLevel: 'error',
    });
    s.sim.http.inject('http_503', 1);
    const failed = await fetch(`${url}/api/v3/walletStates?address=${watched},${unwatched}`);
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('1');
    expect(((await failed.json()) as { error: string }).error).toMatch(/the upstream failed for the unwatched addresses/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    // Watched alone never waits for read-through; the next unwatched ask succeeds.
    expect((await fetch(`${url}/api/v3/walletStates?address=${watched}`)).status).toBe(200);
    const ok = (await (await fetch(`${url}/api/v3/walletStates?address=${watched},${unwatched}`)).json()) as { wallets: { address: string }[] };
    expect(ok.wallets.map((w) => w.address)).toEqual([watched, unwatched]);
  });

  it('load: 200 clients ask for random sets of 10 unwatched addresses out of 500 within one second, the upstream at 2 rps', async () => {
    const s = await sim({ accounts: 520, rps: 2, maxUrlBytes: 64 * 1024, seed: 5 });
    const accounts = s.sim.wallets.accounts().map((a) => a.raw);
    const watched = accounts.slice(0, 3);
    const pool = accounts.slice(20, 520);
    const url = await startReadThroughDaemon((daemon) => running.track(daemon), {
      simUrl: s.url,
      rps: 2,
      timeoutMs: 10000,
      schedule: '{ queueSizes: "* * * * * *", wallets: "*/30 * * * * *" }',
      readThrough: '{ enabled: true, ttlSeconds: 60 }',
      watched,
      logLevel: 'warn',
    });
    const metrics = async () => (await fetch(`${url}/metrics`)).text();
    const counter = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
    // Ready: both snapshots in.
    for (let i = 0; i < 100 && (await fetch(`${url}/readyz`)).status !== 200; i += 1) await new Promise((r) => setTimeout(r, 100));
    const queuePollsBefore = counter(await metrics(), /tonwatch_upstream_requests_total\{upstream="sim",query="queue_sizes",code="200"\} (\d+)/);

    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const asks = Array.from({ length: 200 }, (_, i) => {
      const picked = new Set<string>();
      while (picked.size < 10) picked.add(pool[Math.floor(random() * pool.length)] ?? '');
      // Every tenth client also asks for a watched address: it comes from the snapshot.
      return [...picked, ...(i % 10 === 0 ? [watched[0] ?? ''] : [])];
    });
    const agent = new Agent({ connections: 256 });
    const started = Date.now();
    const answers = await Promise.all(
      asks.map(async (addresses, i) => {
        await new Promise((r) => setTimeout(r, (i * 1000) / 200)); // spread over one second
        const response = await undiciFetch(`${url}/api/v3/walletStates?address=${addresses.join(',')}`, { dispatcher: agent });
        return {
          status: response.status,
          body: (await response.json()) as {
            wallets: { address: string; balance: string; status: string }[];
            address_book: Record<string, { user_friendly: string }>;
          },
        };
      }),
    );
    const elapsed = Date.now() - started;
    await agent.close();

    // Every answer is correct: what the simulator itself says for the same addresses.
    for (const [i, answer] of answers.entries()) {
      expect(answer.status, `client ${i}`).toBe(200);
      const addresses = asks[i] ?? [];
      const expected = JSON.parse(s.sim.wallets.answer(new URL(`http://sim/api/v3/walletStates?address=${addresses.join(',')}`)).body) as {
        wallets: { address: string; balance: string; status: string }[];
        address_book: Record<string, { user_friendly: string }>;
      };
      const order = new Map(addresses.map((a, k) => [a, k]));
      const sorted = [...expected.wallets].sort((x, y) => (order.get(x.address) ?? 0) - (order.get(y.address) ?? 0));
      // Whole wallets: what the (indexer-shaped) upstream left out is left out here too.
      expect(answer.body.wallets).toEqual(sorted);
      for (const a of addresses)
        expect(answer.body.address_book[a]?.user_friendly).toBe(expected.address_book[a]?.user_friendly ?? answer.body.address_book[a]?.user_friendly);
    }
    const text = await metrics();
    // The upstream never saw more than its budget: no 429 at 2 rps.
    expect(s.sim.http.stats()['429'] ?? 0).toBe(0);
    expect(text).not.toMatch(/code="429"/);
    // Coalesced: a few batches for about 500 distinct addresses asked 2,000 times.
    const readThroughCalls = counter(text, /tonwatch_upstream_requests_total\{upstream="sim",query="wallets",code="200"\} (\d+)/);
    expect(readThroughCalls).toBeLessThanOrEqual(6);
    const fetched = counter(text, /tonwatch_read_through_addresses_total\{result="fetched"\} (\d+)/);
    const coalesced = counter(text, /tonwatch_read_through_addresses_total\{result="coalesced"\} (\d+)/);
    const hit = counter(text, /tonwatch_read_through_addresses_total\{result="hit"\} (\d+)/);
    expect(fetched).toBe(new Set(asks.flat().filter((a) => !watched.includes(a))).size);
    expect(fetched + coalesced + hit).toBe(asks.flat().filter((a) => !watched.includes(a)).length);
    expect(counter(text, /tonwatch_read_through_cache_addresses (\d+)/)).toBe(fetched);
    // The queue poll kept its schedule: about one a second throughout.
    const queuePolls = counter(text, /tonwatch_upstream_requests_total\{upstream="sim",query="queue_sizes",code="200"\} (\d+)/) - queuePollsBefore;
    expect(queuePolls).toBeGreaterThanOrEqual(Math.floor(elapsed / 1000) - 1);
    expect(text).toMatch(/^tonwatch_up\{query="queue_sizes"\} 1$/m);
  }, 60_000);
});
