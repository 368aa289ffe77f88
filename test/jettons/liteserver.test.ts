import { afterEach, describe, expect, it } from 'vitest';
import type { UpstreamSettings } from '../../src/domain/config.js';
import type { JettonSettings, JettonsSnapshot } from '../../src/domain/jettons.js';
import { createBatchSize } from '../../src/accounts/batches.js';
import { pollJettons } from '../../src/features/jettons/poll.js';
import { SIM_WHALE_BALANCE } from '../../src/sim/jettons.js';
import { createUpstreamClient } from '../../src/upstream/client.js';
import { createLogSink } from '../helpers/log.js';
import { stoppedAfterEach } from '../helpers/sim.js';

/**
 * Jetton balances read from a liteserver (get_wallet_address on the master, get_wallet_data
 * on the wallet, through runSmcMethod) against the same simulated chain read over HTTP
 * from the indexer's endpoint: the same numbers.
 */

const running = stoppedAfterEach();
const clients: { close(): void }[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

async function pollThrough(upstream: UpstreamSettings, config: Parameters<typeof pollJettons>[0]['config'], start: JettonsSnapshot | null = null) {
  const calls: string[] = [];
  const client = createUpstreamClient({
    upstreams: [upstream],
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    logger: createLogSink().logger,
    observer: { request: (_u, query, code) => calls.push(`${query} ${code}`), skipped: () => undefined },
    now: () => Date.now(),
    userAgent: 'test',
  });
  clients.push(client);
  let snapshot: JettonsSnapshot | null = start;
  const poll = () =>
    pollJettons({
      client,
      logger: createLogSink().logger,
      config,
      batchSize: createBatchSize(1000),
      concurrency: 1,
      previous: () => snapshot,
      publish: (next) => (snapshot = next),
    });
  return { poll, calls, snapshot: () => snapshot };
}

describe('jetton balances from a liteserver', () => {
  it('gives the balances, jetton wallets and owners without one that the indexer gives over HTTP, past 2^53 exact, and asks get_wallet_address once per owner', async () => {
    const sim = await running.sim({ accounts: 45, liteserverPort: 0 });
    await fetch(`${sim.url}/_sim/step?n=5`);
    const jettons: JettonSettings[] = sim.sim.jettons.jettons.map((j) => ({
      name: j.symbol,
      master: j.master,
      masterAsWritten: j.master,
      decimals: null,
    }));
    const watchlist = sim.sim.wallets.accounts().map((a, i) => ({ raw: a.raw, name: `acct-${i}`, labels: {}, minBalanceTons: undefined }));
    const config = { jettons, watchJettons: ['SIMUSD', 'SIMBIG'], watchlist };
    const address = sim.sim.liteserverAddress();
    if (address === null || sim.sim.liteserver === null) throw new Error('no liteserver');
    const lite = await pollThrough(
      {
        kind: 'liteserver',
        name: 'lite',
        rps: 1000,
        timeoutMs: 3000,
        liteservers: [{ host: '127.0.0.1', port: address.port, publicKey: sim.sim.liteserver.publicKey }],
      },
      config,
    );
    const http = await pollThrough({ kind: 'http', name: 'http', url: sim.url, rps: 1000, timeoutMs: 3000 }, config);
    expect(await lite.poll()).toMatchObject({ ok: true });
    expect(await http.poll()).toMatchObject({ ok: true });
    // The config gives no decimals: both paths read them from the masters' metadata.
    expect(lite.snapshot()?.decimals).toEqual(new Map(sim.sim.jettons.jettons.map((j) => [j.master, j.decimals])));
    expect(http.snapshot()?.decimals).toEqual(lite.snapshot()?.decimals);
    const fields = (snapshot: JettonsSnapshot | null) =>
      Object.fromEntries([...(snapshot?.jettons ?? [])].map(([name, records]) => [name, [...records].map(([owner, r]) => [owner, r.wallet, r.balance])]));
    expect(fields(lite.snapshot())).toEqual(fields(http.snapshot()));
    const held = fields(lite.snapshot());
    expect(held['SIMUSD']?.filter(([, wallet]) => wallet === null).length).toBeGreaterThan(0);
    // The whale's balance (it moves with the blocks) stays far past 2^53, every digit equal on both paths.
    expect(held['SIMBIG']?.some(([, , balance]) => BigInt(balance as string) > SIM_WHALE_BALANCE / 2n)).toBe(true);

    // The wallet addresses are kept: the next cycle runs get_wallet_data alone for owners that hold one.
    const firstCycle = lite.calls.length;
    await fetch(`${sim.url}/_sim/step?n=3`);
    expect(await lite.poll()).toMatchObject({ ok: true });
    expect(await http.poll()).toMatchObject({ ok: true });
    expect(fields(lite.snapshot())).toEqual(fields(http.snapshot()));
    expect(lite.calls.length - firstCycle).toBeLessThan(firstCycle);
    expect(lite.calls.every((c) => c.startsWith('jetton_wallets '))).toBe(true);

    // After a restart (a new client, nothing kept in it), the snapshot's jetton wallets are not asked of the master again.
    const liteSettings = {
      kind: 'liteserver',
      name: 'lite',
      rps: 1000,
      timeoutMs: 3000,
      liteservers: [{ host: '127.0.0.1', port: address.port, publicKey: sim.sim.liteserver.publicKey }],
    } as const;
    const restarted = await pollThrough(liteSettings, config, lite.snapshot());
    const bare = await pollThrough(liteSettings, config);
    expect(await restarted.poll()).toMatchObject({ ok: true });
    expect(await bare.poll()).toMatchObject({ ok: true });
    expect(fields(restarted.snapshot())).toEqual(fields(bare.snapshot()));
    const holders = [...(lite.snapshot()?.jettons.values() ?? [])].flatMap((records) => [...records.values()]).filter((r) => r.wallet !== null).length;
    // Without the snapshot: for each holder a get_wallet_address and a look at its wallet's state, and the decimals
    // read again (getMasterchainInfo and get_jetton_data for each jetton).
    expect(bare.calls.length - restarted.calls.length).toBe(2 * holders + 2 * jettons.length);
    // Owners without a jetton wallet cost a look at its state, never a get-method that fails.
    expect([...lite.calls, ...restarted.calls, ...bare.calls].filter((c) => !c.endsWith(' ok'))).toEqual([]);
  });
});
