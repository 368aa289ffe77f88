import { afterEach, describe, expect, it } from 'vitest';
import type { Config, WatchedWallet } from '../../src/domain/config.js';
import type { JettonRecord, JettonsSnapshot, JettonSettings, JettonWalletRow } from '../../src/domain/jettons.js';
import { jettonWalletsRequestLineBytes } from '../../src/upstream/http/urls.js';
import { createJettonSeriesRenderer } from '../../src/features/jettons/series.js';
import { createCompressor, type GzipPart } from '../../src/metrics/gzip-members.js';
import { gunzipSync } from 'node:zlib';
import { createBatchSize } from '../../src/accounts/batches.js';
import { isPackedJettonRecord, plainJettonRecord } from '../../src/features/jettons/packed-record.js';
import { pollJettons } from '../../src/features/jettons/poll.js';
import { createJettonWalletsHandler, parseJettonWalletsQuery } from '../../src/features/jettons/v3.js';
import { SIM_WHALE_BALANCE } from '../../src/sim/jettons.js';
import { friendlyForm } from '../../src/ton/address.js';
import { createUpstreamClient } from '../../src/upstream/client.js';
import { createLogSink } from '../helpers/log.js';
import { startSim, type RunningSim } from '../helpers/sim.js';
import { bodyText } from '../helpers/response.js';

let running: RunningSim | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/** The text a block's gzip members hold. */
const textOf = (parts: readonly GzipPart[]): string => gunzipSync(Buffer.concat(parts.filter((p) => p.length > 0).map((p) => p.gzip))).toString();

const wallet = (raw: string, name: string): WatchedWallet => ({ raw, name, labels: {}, minBalanceTons: undefined });

/** A simulator with `accounts`, a client for it counting requests by outcome, and a config watching SIMUSD and SIMBIG for every account. */
async function setup(accounts: number, maxUrlBytes: number) {
  running = await startSim({ accounts, maxUrlBytes });
  const codes: string[] = [];
  const client = createUpstreamClient({
    upstreams: [{ kind: 'http', name: 'sim', url: running.url, rps: 1000, timeoutMs: 5000 }],
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 10 },
    logger: createLogSink().logger,
    observer: { request: (_u, query, code) => codes.push(`${query}:${code}`), skipped: () => undefined },
    now: () => Date.now(),
    userAgent: 'test',
  });
  const jettons: JettonSettings[] = running.sim.jettons.jettons.map((j) => ({
    name: j.symbol,
    master: j.master,
    masterAsWritten: j.master,
    decimals: j.decimals,
  }));
  const watchlist = running.sim.wallets.accounts().map((a, i) => wallet(a.raw, `acct-${i}`));
  const config: Pick<Config, 'jettons' | 'watchJettons' | 'watchlist'> = { jettons, watchJettons: ['SIMUSD', 'SIMBIG'], watchlist };
  let snapshot: JettonsSnapshot | null = null;
  /** Every row the upstream answered, as parsed. */
  const rows: JettonWalletRow[] = [];
  /** The owners of each request, in the order they were sent. */
  const asked: number[] = [];
  const seen: typeof client = {
    ...client,
    fetchJettonWallets: async (...args) => {
      asked.push(args[0].length);
      const page = await client.fetchJettonWallets(...args);
      if (page.ok) rows.push(...page.value.value.jetton_wallets);
      return page;
    },
  };
  const poll = (options: { pageLimit?: number; batch?: ReturnType<typeof createBatchSize> }) =>
    pollJettons({
      client: seen,
      logger: createLogSink().logger,
      config,
      batchSize: options.batch ?? createBatchSize(1000),
      concurrency: 2,
      pageLimit: options.pageLimit,
      previous: () => snapshot,
      publish: (next) => (snapshot = next),
    });
  return { sim: running.sim, url: running.url, codes, config, poll, rows, asked, snapshot: () => snapshot };
}

describe('the jetton poll against the simulator', () => {
  it('pages an answer that needs several pages, and gives every watched owner a record: its balance, or 0 without a jetton wallet', async () => {
    const { sim, codes, config, poll, snapshot } = await setup(120, 1_000_000);
    // 56 SIMUSD holders among 120 accounts: pages of 20 rows take 3 requests for the one batch.
    const outcome = await poll({ pageLimit: 20 });
    expect(outcome).toEqual({ ok: true, requests: expect.any(Number) as number });
    const held = sim.jettons.wallets();
    const usd = sim.jettons.jettons.find((j) => j.symbol === 'SIMUSD')!;
    const usdHolders = held.filter((w) => w.jetton === usd.master);
    expect(usdHolders.length).toBeGreaterThan(40);
    expect(codes.filter((c) => c === 'jetton_wallets:200').length).toBeGreaterThanOrEqual(Math.ceil(usdHolders.length / 20) + 1);
    const records = snapshot()!.jettons.get('SIMUSD')!;
    expect(records.size).toBe(config.watchlist.length);
    for (const owner of config.watchlist) {
      const simWallet = usdHolders.find((w) => w.owner === owner.raw);
      expect(records.get(owner.raw), owner.name).toMatchObject(
        simWallet === undefined ? { wallet: null, balance: '0' } : { wallet: simWallet.address, balance: simWallet.balance.toString() },
      );
    }
  });

  it('learns a batch size above 8 KiB in its first cycle, one batch at a time while it climbs', async () => {
    const { url, asked, config, poll, snapshot } = await setup(3000, 1_000_000);
    const batch = createBatchSize(1000, Date.now, (n) => jettonWalletsRequestLineBytes(url, n));
    const start = batch.get('read');
    expect(await poll({ batch })).toMatchObject({ ok: true });
    // The start, doubled while it goes through, up to walletBatchSize; then batches of 1000 for both jettons.
    const climb = [start, start * 2, start * 4, start * 8].filter((n) => n < 1000);
    expect(asked.slice(0, climb.length)).toEqual(climb);
    expect(asked.slice(climb.length).every((n) => n === 1000 || n < start * 8)).toBe(true);
    expect(asked.reduce((a, b) => a + b, 0)).toBe(2 * config.watchlist.length);
    expect(asked.length).toBeLessThanOrEqual(climb.length + 3 + 3);
    expect(snapshot()!.jettons.get('SIMUSD')!.size).toBe(config.watchlist.length);
    asked.length = 0;
    expect(await poll({ batch })).toMatchObject({ ok: true });
    expect(asked).toEqual([1000, 1000, 1000, 1000, 1000, 1000]);
  });

  it('finds the batch that fits behind a 414 and asks the refused owners again, missing none', async () => {
    // Room for about 20 owners a request.
    const maxUrlBytes = jettonWalletsRequestLineBytes('http://x', 20) - 'GET  HTTP/1.1\r\n'.length;
    const { sim, codes, config, poll, snapshot } = await setup(100, maxUrlBytes);
    const batch = createBatchSize(1000);
    expect(await poll({ batch })).toMatchObject({ ok: true });
    expect(codes).toContain('jetton_wallets:414');
    for (const jetton of sim.jettons.jettons) {
      const records = snapshot()!.jettons.get(jetton.symbol)!;
      expect(records.size).toBe(config.watchlist.length);
      for (const w of sim.jettons.wallets().filter((x) => x.jetton === jetton.master)) expect(records.get(w.owner)?.balance).toBe(w.balance.toString());
    }
    // The next cycle sends no request the upstream refuses.
    codes.length = 0;
    expect(await poll({ batch })).toMatchObject({ ok: true });
    expect(codes.filter((c) => c.endsWith(':414'))).toEqual([]);
  });

  it('keeps a balance past 2^53 base units exact from the upstream to the metric line and the served answer', async () => {
    const { sim, config, poll, snapshot } = await setup(40, 1_000_000);
    expect(await poll({})).toMatchObject({ ok: true });
    const big = sim.jettons.jettons.find((j) => j.symbol === 'SIMBIG')!;
    const whale = sim.jettons.wallets().find((w) => w.jetton === big.master && w.balance === SIM_WHALE_BALANCE)!;
    expect(SIM_WHALE_BALANCE > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(snapshot()!.jettons.get('SIMBIG')!.get(whale.owner)?.balance).toBe('123456789012345678901234');

    const render = createJettonSeriesRenderer(createCompressor());
    const text = textOf(await render(() => ({ snapshot: snapshot(), ...config, maxAgeSeconds: 300 }), Date.now()));
    const owner = config.watchlist.find((w) => w.raw === whale.owner)!;
    expect(text).toContain(`ton_jetton_balance{address="${whale.owner}",name="${owner.name}",jetton="SIMBIG"} 123456789012345.678901234\n`);
    expect(text).toContain(`ton_jetton_info{jetton="SIMBIG",master="${big.master}",decimals="9"} 1\n`);

    const served = createJettonWalletsHandler().serve(snapshot(), {
      method: 'GET',
      query: `owner_address=${friendlyForm(whale.owner, { bounceable: false, testnet: false })}&jetton_address=${big.master}`,
      now: Date.now(),
      maxAgeSeconds: 300,
      nextPollDueAt: null,
      testnet: false,
      watched: new Set(config.watchlist.map((w) => w.raw)),
      jettons: config.jettons,
      ownerBook: (raw) => ({ user_friendly: friendlyForm(raw, { bounceable: false, testnet: false }), domain: null }),
      loading: false,
    });
    expect(served.status).toBe(200);
    const body = JSON.parse(bodyText(served)) as { jetton_wallets: Record<string, unknown>[]; address_book: Record<string, unknown> };
    expect(body.jetton_wallets).toEqual([
      {
        address: whale.address,
        balance: '123456789012345678901234',
        owner: whale.owner,
        jetton: big.master,
        last_transaction_lt: whale.lt.toString(),
        code_hash: expect.any(String) as string,
        data_hash: expect.any(String) as string,
      },
    ]);
    expect(Object.keys(body.address_book).sort()).toEqual([whale.address, whale.owner, big.master].sort());
  });

  it('serves and exports the same bytes from the records held packed as from the records as parsed', async () => {
    const { sim, config, poll, rows, snapshot } = await setup(60, 1_000_000);
    expect(await poll({})).toMatchObject({ ok: true });
    const packed = snapshot()!;
    const all = [...packed.jettons.values()].flatMap((records) => [...records.values()]);
    expect(all.length).toBe(2 * config.watchlist.length);
    expect(all.every((r) => isPackedJettonRecord(r) === (r.wallet !== null))).toBe(true);
    // One "none" record per answer, not per owner.
    expect(new Set(all.filter((r) => r.wallet === null)).size).toBeLessThanOrEqual(config.jettons.length);
    expect(all.some((r) => r.wallet === null) && all.some((r) => BigInt(r.balance) > 2n ** 64n)).toBe(true);
    // The records as the rows were parsed, made here from the upstream's rows.
    const masters = new Map(config.jettons.map((j) => [j.name, j.master]));
    const asParsed = (name: string, owner: string, held: JettonRecord): JettonRecord => {
      const row = rows.find((r) => r.owner === owner && r.jetton === masters.get(name));
      const { fetchedAt, upstream } = held;
      if (row === undefined) return { wallet: null, balance: '0', lastTransactionLt: null, codeHash: null, dataHash: null, fetchedAt, upstream };
      const { address: wallet, balance, last_transaction_lt: lastTransactionLt, code_hash: codeHash, data_hash: dataHash } = row;
      return { wallet, balance, lastTransactionLt, codeHash, dataHash, fetchedAt, upstream };
    };
    const plain: JettonsSnapshot = {
      ...packed,
      jettons: new Map([...packed.jettons].map(([name, records]) => [name, new Map([...records].map(([owner, r]) => [owner, asParsed(name, owner, r)]))])),
    };
    for (const [name, records] of packed.jettons)
      for (const [owner, r] of records) expect(plainJettonRecord(r)).toStrictEqual(plain.jettons.get(name)?.get(owner));
    const now = Date.now();
    const series = async (s: JettonsSnapshot) =>
      textOf(await createJettonSeriesRenderer(createCompressor())(() => ({ snapshot: s, ...config, maxAgeSeconds: 300 }), now));
    expect(await series(packed)).toBe(await series(plain));
    expect(await series(packed)).toContain('ton_jetton_balance{');
    const owners = config.watchlist.map((w) => w.raw);
    const served = (s: JettonsSnapshot, query: string) =>
      bodyText(
        createJettonWalletsHandler().serve(s, {
          method: 'GET',
          query,
          now,
          maxAgeSeconds: 300,
          nextPollDueAt: null,
          testnet: false,
          watched: new Set(owners),
          jettons: config.jettons,
          ownerBook: (raw) => ({ user_friendly: friendlyForm(raw, { bounceable: false, testnet: false }), domain: null }),
          loading: false,
        }),
      );
    for (const jetton of sim.jettons.jettons) {
      const query = `owner_address=${owners.join(',')}&jetton_address=${jetton.master}&limit=1000`;
      expect(served(packed, query)).toBe(served(plain, query));
      expect(served(packed, query)).toContain('"jetton_wallets":[{');
    }
  });
});

describe('GET /api/v3/jetton/wallets query rules', () => {
  const A = '0:29023DEB1272494B112310754AAC7DD0660B68FCC40C3A693C97BD9ACDA5E563';
  const B = '0:5A89A0A4B9EDFFBB7DF43C3919FC2D1547F4A0294F4E45553A1673A2A6D57242';
  it.each([
    ['no owner', '', 'owner_address is required'],
    ['a master alone', `jetton_address=${A}`, 'owner_address is required'],
    [
      'two masters, two owners',
      `owner_address=${A}&owner_address=${B}&jetton_address=${A}&jetton_address=${B}`,
      'several jetton_address values are accepted only with exactly one owner_address',
    ],
    ['limit 1001', `owner_address=${A}&limit=1001`, 'limit is not allowed: 1001 > 1000'],
    ['limit -1', `owner_address=${A}&limit=-1`, 'invalid limit: -1'],
    ['a bad address', 'owner_address=EQnope', 'invalid address EQnope'],
    ['1025 owners', `owner_address=${Array.from({ length: 1025 }, () => A).join(',')}`, 'too many addresses: at most 1024 per request'],
  ])('%s: 422 %s', (_name, query, error) => {
    const parsed = parseJettonWalletsQuery(query);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error).toContain(error);
  });

  it('takes owners repeated or comma-separated in any form, one master with many owners, and limit and offset', () => {
    const parsed = parseJettonWalletsQuery(
      `owner_address=${A},${friendlyForm(B, { bounceable: true, testnet: false })}&owner_address=${A}&jetton_address=${B}&limit=5&offset=2`,
    );
    expect(parsed).toEqual({ ok: true, owners: [A, B], masters: [B], limit: 5, offset: 2 });
  });
});
