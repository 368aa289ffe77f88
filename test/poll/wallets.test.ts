import { clientStub } from '../helpers/features.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchedWallet } from '../../src/domain/config.js';
import { createBatchSize } from '../../src/accounts/batches.js';
import { pollWallets, type WalletPollDeps } from '../../src/features/wallets/poll.js';
import { walletConcurrency } from '../../src/accounts/batches.js';
import type { UpstreamClient } from '../../src/domain/upstream.js';
import type { WalletsSnapshot } from '../../src/features/wallets/types.js';
import { parseAddress } from '../../src/ton/address.js';
import { createUpstreamClient } from '../../src/upstream/client.js';
import { walletStatesRequestLineBytes } from '../../src/upstream/http/urls.js';
import { UpstreamError } from '../../src/upstream/errors.js';
import { createEpisodeLog } from '../../src/log/episodes.js';
import { walletStatesResponseSchema } from '../../src/upstream/http/schemas.js';
import { createLogSink } from '../helpers/log.js';
import { startSim, type RunningSim } from '../helpers/sim.js';
import { rawAddress, rawAddresses } from '../helpers/addresses.js';

const watch = (raw: string, name = raw): WatchedWallet => {
  const parsed = parseAddress(raw);
  if (!parsed.ok) throw new Error(parsed.reason);
  return { raw: parsed.value.raw, name, labels: {}, minBalanceTons: undefined };
};
const unknownAddress = (i: number) => rawAddress(i, 'F');

describe('wallet poller against the simulator', () => {
  let running: RunningSim | undefined;
  afterEach(async () => {
    await running?.stop();
  });

  const setup = async (accounts: number, maxUrlBytes: number, batch: number, concurrency = 1) => {
    running = await startSim({ accounts, maxUrlBytes });
    const log = createLogSink();
    const requests: string[] = [];
    const upstream = createUpstreamClient({
      upstreams: [{ kind: 'http', name: 'sim', url: running.url, rps: 1000, timeoutMs: 5000 }],
      retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 10 },
      logger: log.logger,
      observer: { request: (_u, _q, code) => requests.push(code), skipped: () => undefined },
      now: () => Date.now(),
      userAgent: 'test',
    });
    /** Addresses per walletStates call that went through. */
    const accepted: number[] = [];
    const client: UpstreamClient = {
      ...clientStub(),
      fetchTips: (signal) => upstream.fetchTips(signal),
      fetchJettonWallets: (owners, master, page, signal) => upstream.fetchJettonWallets(owners, master, page, signal),
      fetchJettonMetadata: () => Promise.reject(new Error('not used')),
      fetchQueueSizes: (signal) => upstream.fetchQueueSizes(signal),
      close: () => upstream.close(),
      async fetchWalletStates(addresses, signal) {
        const result = await upstream.fetchWalletStates(addresses, signal);
        if (result.ok) accepted.push(addresses.length);
        return result;
      },
    };
    let snapshot: WalletsSnapshot | null = null;
    const batchSize = createBatchSize(batch);
    const deps = (watchlist: WatchedWallet[]): WalletPollDeps => ({
      client,
      logger: log.logger,
      now: () => Date.now(),
      watchlist,
      batchSize,
      previous: () => snapshot,
      publish: (s) => {
        snapshot = s;
      },
      concurrency,
    });
    return { sim: running.sim, deps, requests, accepted, log, batchSize, snapshot: () => snapshot };
  };

  /** Compact forms, comma-separated: `/api/v3/walletStates?address=` and 49 bytes an address, less one comma, within 8,192. */
  const FITS_IN_8_KIB = Math.floor((8192 - '/api/v3/walletStates?address='.length + 1) / 49);

  it('behind an 8 KiB request-line limit, finds the largest batch that fits and keeps it; unknown accounts are asked twice, then unknown', async () => {
    expect(FITS_IN_8_KIB).toBe(166);
    const t = await setup(1200, 8192, 1000);
    const watchlist = [...t.sim.wallets.accounts().map((a) => watch(a.raw)), ...[1, 2, 3].map((i) => watch(unknownAddress(i)))];
    const outcome = await pollWallets(t.deps(watchlist));
    expect(outcome).toEqual({ ok: true, fetched: 1200, unknown: 3, failed: 0 });
    // Not halved down to what surely fits: the largest that does.
    expect(t.batchSize.get()).toBe(FITS_IN_8_KIB);
    expect(t.batchSize.settled).toBe(true);
    expect(t.requests.filter((c) => c === '414').length).toBeLessThanOrEqual(8);
    expect(t.log.text()).toMatch(/looking for the largest batch that fits/);
    // The cycle's end says how many calls it took and how many were refused as too long.
    const cycleDone = () => t.log.lines().filter((l) => l['msg'] === 'wallet cycle done');
    expect(cycleDone()[0]).toMatchObject({ batches: t.accepted.length, refusedBatches: t.requests.filter((c) => c === '414').length });
    expect(cycleDone()[0]?.['refusedBatches']).toBeGreaterThan(0);
    const wallets = t.snapshot()?.wallets;
    expect([...(wallets?.keys() ?? [])]).toEqual(watchlist.map((w) => w.raw));
    expect(wallets?.get(unknownAddress(1))?.state).toBeNull();
    // Matched by address, whatever form was asked and whatever order the upstream answered in.
    for (const account of t.sim.wallets.accounts().slice(0, 50)) {
      expect(wallets?.get(account.raw)?.state?.address).toBe(account.raw);
      if (account.kind !== 'nonexist') expect(wallets?.get(account.raw)?.state?.balance).toBe(account.balance.toString());
    }
    // The next cycle starts at the remembered size: no more 414s, at least 150 addresses a call.
    t.requests.length = 0;
    t.accepted.length = 0;
    await pollWallets(t.deps(watchlist));
    expect(t.requests).not.toContain('414');
    expect(cycleDone()[1]).toMatchObject({ batches: t.accepted.length, refusedBatches: 0 });
    const firstPass = t.accepted.slice(0, Math.ceil(watchlist.length / FITS_IN_8_KIB));
    expect(firstPass.slice(0, -1).every((n) => n === FITS_IN_8_KIB)).toBe(true);
    expect(firstPass.reduce((a, b) => a + b, 0)).toBe(watchlist.length);
  });

  it('with batches in flight together, takes each refusal once and still answers every wallet', async () => {
    const t = await setup(3000, 8192, 1000, 4);
    const watchlist = t.sim.wallets.accounts().map((a) => watch(a.raw));
    const outcome = await pollWallets(t.deps(watchlist));
    expect(outcome).toEqual({ ok: true, fetched: 3000, unknown: 0, failed: 0 });
    expect(t.batchSize.get()).toBe(FITS_IN_8_KIB);
    // Three 1000-batches refused together move the size once, not three times.
    const steps = t.log
      .lines()
      .filter((l) => l['msg'] === 'upstream refused the URL length; looking for the largest batch that fits, and remembering it')
      .map((l) => l['refused']);
    expect(steps[0]).toBe(1000);
    expect(new Set(steps).size).toBe(steps.length);
    expect(t.accepted.every((n) => n <= FITS_IN_8_KIB)).toBe(true);
    const wallets = t.snapshot()?.wallets;
    expect([...(wallets?.keys() ?? [])]).toEqual(watchlist.map((w) => w.raw));
    for (const account of t.sim.wallets.accounts()) {
      if (account.kind !== 'nonexist') expect(wallets?.get(account.raw)?.state?.balance).toBe(account.balance.toString());
    }
  });

  it('climbs past a probe that failed otherwise (a 502), one batch in flight while it climbs', async () => {
    const t = await setup(3000, 1_000_000, 1000, 8);
    const watchlist = t.sim.wallets.accounts().map((a) => watch(a.raw));
    const base = t.deps(watchlist);
    const batchSize = createBatchSize(1000, Date.now, (n) => walletStatesRequestLineBytes(running!.url, n));
    let failedOnce = false;
    let inFlight = 0;
    let mostWhileClimbing = 0;
    let climbed = false;
    const client: UpstreamClient = {
      ...base.client,
      async fetchWalletStates(addresses, signal) {
        if (!failedOnce && addresses.length > FITS_IN_8_KIB) {
          failedOnce = true;
          return { ok: false, error: new UpstreamError('http_5xx', 'HTTP 502', { upstream: 'sim', query: 'wallets', status: 502 }) };
        }
        inFlight += 1;
        climbed ||= addresses.length === 1000;
        if (!climbed) mostWhileClimbing = Math.max(mostWhileClimbing, inFlight);
        const result = await base.client.fetchWalletStates(addresses, signal);
        inFlight -= 1;
        return result;
      },
    };
    const deps = { ...base, client, batchSize };
    expect(await pollWallets(deps)).toEqual({ ok: true, fetched: 2668, unknown: 0, failed: 332 });
    // The failed probe held nothing back: the next one went out, and the climb reached walletBatchSize.
    expect(t.accepted.slice(0, 3)).toEqual([166, 332, 664]);
    expect(t.accepted.slice(3).sort((a, b) => a - b)).toEqual([506, 1000]);
    expect(mostWhileClimbing).toBe(1);
    t.accepted.length = 0;
    expect(await pollWallets(deps)).toMatchObject({ ok: true, fetched: 3000, failed: 0 });
    expect(t.accepted).toEqual([1000, 1000, 1000]);
  });

  it('after a batch whose client threw, the next cycle does not wait for its answer', async () => {
    const t = await setup(1000, 1_000_000, 1000, 8);
    const base = t.deps(t.sim.wallets.accounts().map((a) => watch(a.raw)));
    const batchSize = createBatchSize(1000, Date.now, (n) => walletStatesRequestLineBytes(running!.url, n));
    let thrown = false;
    const client: UpstreamClient = {
      ...base.client,
      fetchWalletStates(addresses, signal) {
        if (thrown || addresses.length <= FITS_IN_8_KIB) return base.client.fetchWalletStates(addresses, signal);
        thrown = true;
        return Promise.reject(new Error('a bug in the client'));
      },
    };
    await expect(pollWallets({ ...base, client, batchSize })).rejects.toThrow('a bug in the client');
    expect(await pollWallets({ ...base, client, batchSize })).toMatchObject({ ok: true, fetched: 1000 });
  });

  it('asks again for what a silently truncated answer left out', async () => {
    const t = await setup(1100, 1_000_000, 1024);
    const watchlist = t.sim.wallets.accounts().map((a) => watch(a.raw));
    const outcome = await pollWallets(t.deps(watchlist));
    // 1024 asked, 1000 answered (the indexer's limit): the other 24 are asked once more.
    expect(outcome).toEqual({ ok: true, fetched: 1100, unknown: 0, failed: 0 });
    expect(t.requests).toEqual(['200', '200', '200']);
  });

  it('keeps the last values of a failed batch while the others update, and drops wallets that left the watchlist', async () => {
    const t = await setup(40, 1_000_000, 10);
    const watchlist = t.sim.wallets.accounts().map((a) => watch(a.raw));
    await pollWallets(t.deps(watchlist));
    const before = t.snapshot()!;
    const fetchedBefore = new Map([...before.wallets].map(([raw, r]) => [raw, r.fetchedAt]));
    for (let i = 0; i < 50; i += 1) t.sim.wallets.step();
    await new Promise((resolve) => setTimeout(resolve, 5));
    t.sim.http.inject('http_503', 1);
    const outcome = await pollWallets(t.deps(watchlist.slice(0, 35)));
    expect(outcome).toMatchObject({ ok: true, failed: 10 });
    const after = t.snapshot()!;
    expect(after.wallets.size).toBe(35);
    // The first batch failed: those ten records are the very same objects as before, with their fetch times.
    for (const w of watchlist.slice(0, 10)) {
      expect(after.wallets.get(w.raw)).toBe(before.wallets.get(w.raw));
      expect(after.wallets.get(w.raw)?.fetchedAt).toBe(fetchedBefore.get(w.raw));
    }
    // The others were fetched again: a changed state is a new record, an unchanged one the record held, fetched later.
    const fetched = watchlist.slice(10, 35).filter((w) => after.wallets.get(w.raw)!.fetchedAt > fetchedBefore.get(w.raw)!);
    expect(fetched).toHaveLength(25);
    const same = watchlist.slice(10, 35).filter((w) => after.wallets.get(w.raw) === before.wallets.get(w.raw));
    const neverMoving = watchlist.slice(10, 35).filter((w) => ['frozen', 'nonexist'].includes(t.sim.wallets.account(w.raw)!.kind));
    expect(neverMoving.length).toBeGreaterThan(0);
    expect(same).toEqual(neverMoving);
  });

  it('leaves out, from the batch it cuts next, what the replica no longer owns, and keeps what it held of those wallets', async () => {
    const t = await setup(40, 1_000_000, 10);
    const watchlist = t.sim.wallets.accounts().map((a) => watch(a.raw));
    await pollWallets(t.deps(watchlist));
    const before = t.snapshot()!;
    const fetchedBefore = new Map([...before.wallets].map(([raw, r]) => [raw, r.fetchedAt]));
    for (let i = 0; i < 50; i += 1) t.sim.wallets.step();
    await new Promise((resolve) => setTimeout(resolve, 5));
    // After the first batch, members joined: this replica owns every other wallet now.
    const owned = new Set(watchlist.filter((_, i) => i % 2 === 0).map((w) => w.raw));
    const asked = t.accepted.length;
    const stillOwned = (raw: string) => t.accepted.length === asked || owned.has(raw);
    const outcome = await pollWallets({ ...t.deps(watchlist), stillOwned });
    expect(outcome).toEqual({ ok: true, fetched: 25, unknown: 0, failed: 0 });
    expect(t.accepted.slice(asked)).toEqual([10, 10, 5]);
    const after = t.snapshot()!;
    expect(after.wallets.size).toBe(40);
    const kept = watchlist
      .filter((w) => after.wallets.get(w.raw) === before.wallets.get(w.raw) && after.wallets.get(w.raw)?.fetchedAt === fetchedBefore.get(w.raw))
      .map((w) => w.raw);
    expect(kept).toEqual(
      watchlist
        .slice(10)
        .filter((w) => !owned.has(w.raw))
        .map((w) => w.raw),
    );
  });

  it('asks the wallets it took over mid-cycle ahead of the rest of its share, and publishes them as soon as they are answered', async () => {
    const t = await setup(40, 1_000_000, 10);
    const watchlist = t.sim.wallets.accounts().map((a) => watch(a.raw));
    const [share, left] = [watchlist.slice(0, 20), watchlist.slice(20)];
    const base = t.deps(share);
    const batches: string[][] = [];
    const published: string[][] = [];
    // The member that owned `left` left after this replica's first batch: its share grew.
    const gained = () => (batches.length === 0 ? [] : left.splice(0));
    const outcome = await pollWallets({
      ...base,
      client: { ...base.client, fetchWalletStates: (addresses, signal) => (batches.push([...addresses]), base.client.fetchWalletStates(addresses, signal)) },
      publish: (s) => {
        published.push([...s.wallets.keys()]);
        return base.publish(s);
      },
      gained,
    });
    expect(outcome).toEqual({ ok: true, fetched: 40, unknown: 0, failed: 0 });
    const raws = (from: number, to: number) => watchlist.slice(from, to).map((w) => w.raw);
    expect(batches).toEqual([raws(0, 10), raws(20, 30), raws(30, 40), raws(10, 20)]);
    // The wallets taken over went out once their batches were answered, before the rest of the share was asked; the cycle's snapshot holds all.
    expect(published).toEqual([raws(20, 40), [...raws(0, 20), ...raws(20, 40)]]);
    const line = t.log.lines().find((l) => l['msg'] === 'polled the wallets taken over');
    expect(line).toMatchObject({ wallets: 20, failed: 0, notAsked: 0, ok: true, during: 'cycle' });
  });

  it('fails the cycle without publishing when no batch answers', async () => {
    const t = await setup(5, 1_000_000, 10);
    t.sim.http.inject('reset', 1);
    const outcome = await pollWallets(t.deps(t.sim.wallets.accounts().map((a) => watch(a.raw))));
    expect(outcome).toMatchObject({ ok: false, error: expect.stringMatching(/^network/) });
    expect(t.snapshot()).toBeNull();
  });
});

describe('wallet poller concurrency', () => {
  it.each([
    [1, 1],
    [2, 1],
    [3, 2],
    [10, 5],
    [20, 8],
    [1000, 8],
  ])('keeps %d rps busy with %d batches in flight', (rps, expected) => {
    expect(walletConcurrency(rps)).toBe(expected);
  });

  it('has at most `concurrency` batches in flight, and a cycle as long as the slowest chain of them', async () => {
    const log = createLogSink('info');
    const addresses = rawAddresses(40);
    let inFlight = 0;
    let most = 0;
    const client = {
      ...clientStub(),
      fetchTips: () => Promise.reject(new Error('not used')),
      fetchJettonWallets: () => Promise.reject(new Error('not used')),
      fetchJettonMetadata: () => Promise.reject(new Error('not used')),
      fetchQueueSizes: () => Promise.reject(new Error('not used')),
      close: () => undefined,
      fetchWalletStates: async (batch: readonly string[]) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 20));
        inFlight -= 1;
        return {
          ok: true as const,
          value: {
            upstream: 'fake',
            fetchedAt: 1,
            value: walletStatesResponseSchema.parse({ wallets: batch.map((address) => ({ address, status: 'active' })) }),
          },
        };
      },
    };
    let published: WalletsSnapshot | null = null;
    const outcome = await pollWallets({
      client,
      logger: log.logger,
      now: () => Date.now(),
      watchlist: addresses.map((a) => watch(a)),
      batchSize: createBatchSize(5),
      concurrency: 3,
      previous: () => null,
      publish: (s) => {
        published = s;
      },
    });
    expect(outcome).toEqual({ ok: true, fetched: 40, unknown: 0, failed: 0 });
    expect(most).toBe(3);
    // Answers came back out of order; the snapshot is in watchlist order all the same.
    expect([...((published as WalletsSnapshot | null)?.wallets.keys() ?? [])]).toEqual(addresses);
  });
});

describe('wallet poller progress', () => {
  it('logs batches done of total with an ETA during a long cycle', async () => {
    const log = createLogSink('info');
    let clock = 0;
    const addresses = rawAddresses(50);
    // A fake upstream that answers every batch after 4 s of (virtual) time.
    const client = {
      ...clientStub(),
      fetchTips: () => Promise.reject(new Error('not used')),
      fetchJettonWallets: () => Promise.reject(new Error('not used')),
      fetchJettonMetadata: () => Promise.reject(new Error('not used')),
      fetchQueueSizes: () => Promise.reject(new Error('not used')),
      close: () => undefined,
      fetchWalletStates: (batch: readonly string[]) => {
        clock += 4_000;
        return Promise.resolve({
          ok: true as const,
          value: {
            upstream: 'fake',
            fetchedAt: clock,
            value: walletStatesResponseSchema.parse({ wallets: batch.map((address) => ({ address, status: 'active', balance: '1' })) }),
          },
        });
      },
    };
    const outcome = await pollWallets({
      client,
      logger: log.logger,
      now: () => clock,
      watchlist: addresses.map((a) => watch(a)),
      batchSize: createBatchSize(10),
      previous: () => null,
      publish: () => undefined,
    });
    expect(outcome).toEqual({ ok: true, fetched: 50, unknown: 0, failed: 0 });
    const progress = log.lines().filter((l) => l['msg'] === 'wallet cycle in progress');
    // 5 batches × 4 s: the first report comes after 12 s, with 3 of 5 batches done.
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toMatchObject({ batchesDone: 3, batchesTotal: 5, done: 30, total: 50, pass: 1 });
    expect(progress[0]?.['etaSeconds']).toBe(8);
  });
});

describe('a dead upstream under a large watchlist', () => {
  it('logs one line when its failed batches start, none while they go on, one when they end; not one per batch', async () => {
    const log = createLogSink();
    let dead = true;
    const client: UpstreamClient = {
      ...clientStub(),
      fetchTips: () => Promise.resolve([]),
      fetchJettonWallets: () => Promise.reject(new Error('not used')),
      fetchJettonMetadata: () => Promise.reject(new Error('not used')),
      fetchQueueSizes: () => Promise.reject(new Error('not used')),
      close: () => undefined,
      fetchWalletStates(addresses) {
        if (dead) return Promise.resolve({ ok: false, error: new UpstreamError('network', 'connect ECONNREFUSED', { upstream: 'gone', query: 'wallets' }) });
        const wallets = addresses.map((raw) => ({ address: raw, status: 'active', is_wallet: false }));
        return Promise.resolve({ ok: true, value: { value: walletStatesResponseSchema.parse({ wallets }), upstream: 'back', fetchedAt: Date.now() } });
      },
    };
    const watchlist = rawAddresses(100_000).map((raw) => watch(raw));
    const episodes = createEpisodeLog(log.logger, () => Date.now());
    const deps: WalletPollDeps = {
      client,
      logger: log.logger,
      now: () => Date.now(),
      watchlist,
      batchSize: createBatchSize(1000),
      previous: () => null,
      publish: () => undefined,
      episodes,
      concurrency: 8,
    };
    const warnings = () => log.lines().filter((l) => (l['level'] as number) >= 40);
    expect(await pollWallets(deps)).toMatchObject({ ok: false });
    expect(warnings()).toEqual([
      expect.objectContaining({ msg: "wallet batches failing; keeping those wallets' last values", failedBatches: 100, wallets: 100_000 }),
    ]);
    await pollWallets(deps);
    await pollWallets(deps);
    expect(warnings()).toHaveLength(1);
    dead = false;
    expect(await pollWallets(deps)).toMatchObject({ ok: true, fetched: 100_000 });
    expect(log.lines().filter((l) => l['msg'] === 'wallet batches answered again')).toHaveLength(1);
    expect(warnings()).toHaveLength(1);
  });
});

describe('batches cut by the request line, against the simulator behind 8 KiB', () => {
  let running: RunningSim | undefined;
  afterEach(async () => {
    await running?.stop();
  });

  it.each([1000, 10_000])('%i wallets: no 414 from the first batch on; one probe for a larger limit, then steady cycles of full batches', async (count) => {
    running = await startSim({ accounts: count, maxUrlBytes: 8192 });
    const sim = running;
    const codes: string[] = [];
    const log = createLogSink();
    const client = createUpstreamClient({
      upstreams: [{ kind: 'http', name: 'sim', url: sim.url, rps: 1000, timeoutMs: 5000 }],
      retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 10 },
      logger: log.logger,
      observer: { request: (_u, _q, code) => codes.push(code), skipped: () => undefined },
      now: () => Date.now(),
      userAgent: 'test',
    });
    let snapshot: WalletsSnapshot | null = null;
    const deps: WalletPollDeps = {
      client,
      logger: log.logger,
      now: () => Date.now(),
      watchlist: sim.sim.wallets.accounts().map((a) => watch(a.raw)),
      batchSize: createBatchSize(1000, Date.now, (n) => walletStatesRequestLineBytes(sim.url, n)),
      previous: () => snapshot,
      publish: (s) => {
        snapshot = s;
      },
      concurrency: 4,
    };
    const cycles: { calls: number; refused: number }[] = [];
    for (let cycle = 0; cycle < 3; cycle += 1) {
      codes.length = 0;
      expect(await pollWallets(deps)).toMatchObject({ ok: true, fetched: count });
      cycles.push({ calls: codes.length, refused: codes.filter((c) => c === '414').length });
    }
    const full = Math.ceil(count / 166);
    // The first cycle: batches that fit from the start, and the poll's one probe at twice the size.
    expect(cycles[0]?.refused).toBeLessThanOrEqual(1);
    expect(cycles.slice(1)).toEqual([
      { calls: full, refused: 0 },
      { calls: full, refused: 0 },
    ]);
  });
});
