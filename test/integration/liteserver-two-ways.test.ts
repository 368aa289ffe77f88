import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDaemon, type Daemon } from '../../src/app/daemon.js';
import { configFrom } from '../helpers/config.js';
import { createLogSink } from '../helpers/log.js';
import { omissionProblems } from '../helpers/indexer-schema.js';
import { eventually } from '../helpers/process.js';
import { startSim, type RunningSim } from '../helpers/sim.js';

/**
 * One simulated chain, held still, polled two ways by two daemons: over the toncenter HTTP
 * face and over the liteserver face. What they serve and export must agree. Then one
 * daemon with both upstreams: failover from a dead liteserver to HTTP, and back.
 */

const started: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

const get = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
};

async function simWithLiteserver(seed: number, accounts: number): Promise<RunningSim> {
  const sim = await startSim({ seed, accounts, liteserverPort: 0, scenario: 'surge' });
  started.push(sim);
  await fetch(`${sim.url}/_sim/step?n=30`);
  return sim;
}

const liteUpstream = (sim: RunningSim, name = 'lite') =>
  `{ name: ${name}, kind: liteserver, rps: 500, timeoutMs: 1000, liteservers: [{ host: 127.0.0.1, port: ${sim.sim.liteserverAddress()?.port}, publicKey: "${sim.sim.liteserver?.publicKey}" }] }`;
const httpUpstream = (sim: RunningSim, name = 'http') => `{ name: ${name}, kind: http, url: "${sim.url}", rps: 500, timeoutMs: 1000 }`;

async function daemonOn(upstreams: string, watchlist: readonly string[]): Promise<{ daemon: Daemon; url: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'tonwatch-two-ways-'));
  const config = await configFrom(`
listen: { host: 127.0.0.1, port: 0 }
upstreams: [ ${upstreams} ]
schedule: { queueSizes: "* * * * * *", wallets: "* * * * * *" }
retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 50 }
snapshot: { file: "${join(dir, 'snapshot.json')}", maxAgeSeconds: 60 }
watchlist: [${watchlist.map((a) => `{ address: "${a}" }`).join(', ')}]
`);
  const daemon = createDaemon({ config, logger: createLogSink().logger, now: () => Date.now(), version: 't', nodeVersion: 'v20' });
  started.push(daemon);
  const url = `http://127.0.0.1:${(await daemon.start()).port}`;
  await eventually(async () => ((await get(`${url}/readyz`)).status === 200 ? true : undefined), 15_000, 'ready');
  return { daemon, url };
}

/** The ton_* series of a scrape, sorted. */
const tonSeries = (metrics: string): string[] =>
  metrics
    .split('\n')
    .filter((line) => line.startsWith('ton_'))
    .sort();

describe('the same chain over HTTP and over the liteserver', () => {
  it('serves equal v2 bodies (@extra aside) and equal walletStates, and exports equal ton_* series', async () => {
    const sim = await simWithLiteserver(21, 40);
    const accounts = sim.sim.wallets.accounts();
    // Accounts the indexer lists as deleted (status nonexist) do not exist for a liteserver: left out here, checked below.
    const watchlist = accounts.filter((a) => a.kind !== 'nonexist').map((a) => a.raw);
    const [viaHttp, viaLite] = await Promise.all([daemonOn(httpUpstream(sim), watchlist), daemonOn(liteUpstream(sim), watchlist)]);

    const v2 = await Promise.all([viaHttp, viaLite].map(async (d) => JSON.parse((await get(`${d.url}/api/v2/getOutMsgQueueSizes`)).body)));
    expect(v2[1].result['@extra']).toMatch(/:lite:snapshot$/);
    for (const body of v2) delete body.result['@extra'];
    expect(v2[1]).toEqual(v2[0]);
    expect(v2[0].result.shards.length).toBeGreaterThan(2);

    const query = `/api/v3/walletStates?address=${watchlist.join(',')}`;
    const v3 = await Promise.all([viaHttp, viaLite].map(async (d) => JSON.parse((await get(`${d.url}${query}`)).body)));
    expect(v3[1].wallets).toEqual(v3[0].wallets);
    // The indexer's omission rule, whichever kind of upstream answered.
    for (const wallet of v3[1].wallets) expect(omissionProblems(wallet)).toEqual([]);
    expect(v3[1].wallets).toHaveLength(watchlist.length);
    // The address book: the same user-friendly forms; toncenter's `interfaces` are its indexer's, not computed here.
    const friendly = (book: Record<string, { user_friendly: string; domain: null }>) =>
      Object.fromEntries(Object.entries(book).map(([k, v]) => [k, [v.user_friendly, v.domain]]));
    expect(friendly(v3[1].address_book)).toEqual(friendly(v3[0].address_book));

    const [httpSeries = [], liteSeries] = await Promise.all([viaHttp, viaLite].map(async (d) => tonSeries((await get(`${d.url}/metrics`)).body)));
    // Block creation counts come from a liteserver's getValidatorStats only (docs/metrics.md): the one difference.
    const liteOnly = (line: string) => line.startsWith('ton_blocks_created_total{') || line.startsWith('ton_validator_blocks_created_total{');
    expect(liteSeries?.filter(liteOnly).length).toBeGreaterThan(0);
    expect(liteSeries?.filter((l) => !liteOnly(l))).toEqual(httpSeries);
    expect(httpSeries.some((l) => l.startsWith('ton_wallet_balance_tons{'))).toBe(true);
    expect(httpSeries.some((l) => l.startsWith('ton_out_msg_queue_size{'))).toBe(true);
  }, 60_000);

  it('leaves out an account that does not exist, where the indexer says nonexist', async () => {
    const sim = await simWithLiteserver(22, 20);
    const gone = sim.sim.wallets.accounts().find((a) => a.kind === 'nonexist');
    if (gone === undefined) throw new Error('the simulator has no nonexist account');
    const viaLite = await daemonOn(liteUpstream(sim), [gone.raw]);
    await eventually(
      async () => (/tonwatch_up\{query="wallets"\} 1/.test((await get(`${viaLite.url}/metrics`)).body) ? true : undefined),
      10_000,
      'a wallet poll',
    );
    const v3 = JSON.parse((await get(`${viaLite.url}/api/v3/walletStates?address=${gone.raw}`)).body);
    expect(v3.wallets).toEqual([]);
  }, 30_000);

  it('fails over from a dead liteserver to HTTP, and back when it answers again', async () => {
    const sim = await simWithLiteserver(23, 10);
    const { url } = await daemonOn(`${liteUpstream(sim)}, ${httpUpstream(sim)}`, [sim.sim.wallets.accounts()[0]?.raw ?? '']);
    const extra = async () => (JSON.parse((await get(`${url}/api/v2/getOutMsgQueueSizes`)).body) as { result: { '@extra': string } }).result['@extra'];
    expect(await extra()).toMatch(/:lite:snapshot$/);
    await fetch(`${sim.url}/_sim/liteserver?fault=refuse`);
    await eventually(async () => ((await extra()).endsWith(':http:snapshot') ? true : undefined), 10_000, 'failover to HTTP');
    const metrics = (await get(`${url}/metrics`)).body;
    expect(metrics).toMatch(/tonwatch_upstream_requests_total\{upstream="lite",query="queue_sizes",code="network"\} [1-9]/);
    await fetch(`${sim.url}/_sim/liteserver?fault=none`);
    await eventually(async () => ((await extra()).endsWith(':lite:snapshot') ? true : undefined), 10_000, 'back to the liteserver');
  }, 40_000);
});
