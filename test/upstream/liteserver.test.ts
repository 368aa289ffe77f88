import { afterEach, describe, expect, it } from 'vitest';
import type { UpstreamSettings } from '../../src/domain/config.js';
import type { LiteserverUpstreamSettings } from '../../src/upstream/liteserver/settings.js';
import { createUpstreamClient, type UpstreamClientDeps } from '../../src/upstream/client.js';
import { createLogSink } from '../helpers/log.js';
import { stoppedAfterEach, type RunningSim } from '../helpers/sim.js';

/**
 * The liteserver upstream against the simulator's liteserver face: the same chain state
 * answered over HTTP and over ADNL, the per-block fallback, and every fault class counted
 * and survived.
 */

const running = stoppedAfterEach();
const clients: { close(): void }[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

function liteSettings(sim: RunningSim, more: Partial<LiteserverUpstreamSettings> = {}): LiteserverUpstreamSettings {
  const address = sim.sim.liteserverAddress();
  if (address === null || sim.sim.liteserver === null) throw new Error('no liteserver');
  return {
    kind: 'liteserver',
    name: 'lite',
    rps: 1000,
    timeoutMs: 1500,
    liteservers: [{ host: '127.0.0.1', port: address.port, publicKey: sim.sim.liteserver.publicKey }],
    ...more,
  };
}

function clientFor(upstreams: UpstreamSettings[], extra: Partial<UpstreamClientDeps> = {}) {
  const requests: string[] = [];
  const log = createLogSink();
  const client = createUpstreamClient({
    upstreams,
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    logger: log.logger,
    observer: { request: (upstream, query, code) => requests.push(`${upstream} ${query} ${code}`), skipped: () => undefined },
    now: () => Date.now(),
    userAgent: 'test',
    ...extra,
  });
  clients.push(client);
  return { client, requests, log };
}

/** The shards without the upstream's own `@type` names (the served body writes the seed's constants). */
const withoutTypes = (shards: readonly { id: object; size: number }[]) =>
  shards.map(({ id, size }) => ({ id: Object.fromEntries(Object.entries(id).filter(([k]) => k !== '@type')), size }));

const control = async (sim: RunningSim, query: string): Promise<void> => {
  const response = await fetch(`${sim.url}/_sim/liteserver?${query}`);
  expect(response.status).toBe(200);
};

describe('liteserver upstream', () => {
  it('answers the queue sizes exactly as the HTTP face of the same chain, with one getOutMsgQueueSizes call', async () => {
    const sim = await running.sim({ seed: 5, liteserverPort: 0, scenario: 'surge' });
    await fetch(`${sim.url}/_sim/step?n=40`);
    const http = clientFor([{ kind: 'http', name: 'http', url: sim.url, rps: 1000, timeoutMs: 1500 }]);
    const lite = clientFor([liteSettings(sim)]);
    const [viaHttp, viaLite] = await Promise.all([http.client.fetchQueueSizes(), lite.client.fetchQueueSizes()]);
    expect(viaHttp.ok && viaLite.ok).toBe(true);
    if (!viaHttp.ok || !viaLite.ok) return;
    expect(viaLite.value.value.shards).toEqual(withoutTypes(viaHttp.value.value.shards));
    expect(viaLite.value.value.shards.length).toBeGreaterThan(2);
    expect(viaLite.value.value.ext_msg_queue_size_limit).toBe(viaHttp.value.value.ext_msg_queue_size_limit);
    expect(viaLite.value.upstream).toBe('lite');
    expect(lite.requests).toEqual(['lite queue_sizes ok']);
  });

  it('falls back by itself to getAllShardsInfo and getBlockOutMsgQueueSize on a liteserver that refuses getOutMsgQueueSizes, and remembers', async () => {
    const sim = await running.sim({ seed: 6, liteserverPort: 0, liteserverWithoutQueueSizes: true });
    await fetch(`${sim.url}/_sim/step?n=5`);
    const http = clientFor([{ kind: 'http', name: 'http', url: sim.url, rps: 1000, timeoutMs: 1500 }]);
    const lite = clientFor([liteSettings(sim)]);
    const viaHttp = await http.client.fetchQueueSizes();
    const first = await lite.client.fetchQueueSizes();
    expect(first.ok && viaHttp.ok).toBe(true);
    if (!first.ok || !viaHttp.ok) return;
    expect(first.value.value.shards).toEqual(withoutTypes(viaHttp.value.value.shards));
    expect(first.value.value.ext_msg_queue_size_limit).toBe(8000);
    const shardCount = first.value.value.shards.length;
    // getOutMsgQueueSizes refused, then masterchain info, all shards, one size per block.
    expect(lite.requests).toEqual([
      'lite queue_sizes liteserver_error_-400',
      'lite queue_sizes ok',
      'lite queue_sizes ok',
      ...Array.from({ length: shardCount }, () => 'lite queue_sizes ok'),
    ]);
    expect(lite.log.lines().some((l) => String(l['msg']).includes('getBlockOutMsgQueueSize per shard block from now on'))).toBe(true);
    lite.requests.length = 0;
    const second = await lite.client.fetchQueueSizes();
    expect(second.ok).toBe(true);
    expect(lite.requests).toHaveLength(2 + shardCount);
  });

  it('reads the sizes of the blocks it was given even when a block comes between getAllShardsInfo and the size calls', async () => {
    const sim = await running.sim({ seed: 6, liteserverPort: 0, liteserverWithoutQueueSizes: true });
    const http = clientFor([{ kind: 'http', name: 'http', url: sim.url, rps: 1000, timeoutMs: 1500 }]);
    const before = await http.client.fetchQueueSizes();
    let calls = 0;
    // The observer runs as each call ends: after getAllShardsInfo (the third call), the chain moves on.
    const lite = clientFor([liteSettings(sim)], {
      observer: {
        request: () => {
          calls += 1;
          if (calls === 3) sim.sim.chain.step();
        },
        skipped: () => undefined,
      },
    });
    const sizes = await lite.client.fetchQueueSizes();
    expect(sizes.ok && before.ok).toBe(true);
    if (!sizes.ok || !before.ok) return;
    expect(sizes.value.value.shards).toEqual(withoutTypes(before.value.value.shards));
    expect(sim.sim.chain.queues()[0]?.seqno).toBe((sizes.value.value.shards[0]?.id.seqno ?? 0) + 1);
  });

  it('reads wallet states equal to the HTTP face, field by field, and leaves out accounts that do not exist', async () => {
    const sim = await running.sim({ seed: 7, liteserverPort: 0, accounts: 40 });
    await fetch(`${sim.url}/_sim/step?n=3`);
    const accounts = sim.sim.wallets.accounts();
    const addresses = [...accounts.map((a) => a.raw), '0:ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB'];
    const http = clientFor([{ kind: 'http', name: 'http', url: sim.url, rps: 1000, timeoutMs: 1500 }]);
    const lite = clientFor([liteSettings(sim)]);
    const [viaHttp, viaLite] = await Promise.all([http.client.fetchWalletStates(addresses), lite.client.fetchWalletStates(addresses)]);
    expect(viaHttp.ok && viaLite.ok).toBe(true);
    if (!viaHttp.ok || !viaLite.ok) return;
    const byAddress = <T extends { address: string }>(list: readonly T[]) => [...list].sort((a, b) => a.address.localeCompare(b.address));
    const nonexist = new Set(accounts.filter((a) => a.kind === 'nonexist').map((a) => a.raw));
    expect(nonexist.size).toBeGreaterThan(0);
    // toncenter's indexer still lists an account it saw deleted (status nonexist); a liteserver has no such account.
    expect(byAddress(viaLite.value.value.wallets)).toEqual(byAddress(viaHttp.value.value.wallets.filter((w) => !nonexist.has(w.address))));
    expect(viaLite.value.value.wallets.map((w) => w.wallet_type).filter((t) => t !== null)).toEqual(
      expect.arrayContaining(['wallet v4 r2', 'wallet v5 r1', 'wallet v3 r2']),
    );
    // One getMasterchainInfo, then one getAccountState per address.
    expect(lite.requests).toHaveLength(1 + addresses.length);
    expect(new Set(lite.requests)).toEqual(new Set(['lite wallets ok']));
  });

  it('round-robins over several liteservers and passes over a dead one for a while', async () => {
    const sim = await running.sim({ seed: 8, liteserverPort: 0, accounts: 20 });
    const good = liteSettings(sim).liteservers[0];
    if (good === undefined) throw new Error('no liteserver');
    const dead = { host: '127.0.0.1', port: 1, publicKey: good.publicKey };
    const lite = clientFor([liteSettings(sim, { liteservers: [dead, good] })], { retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    for (let i = 0; i < 4; i += 1) expect((await lite.client.fetchQueueSizes()).ok).toBe(true);
    // Refused once, then skipped: every later call went to the live one.
    expect(lite.requests.filter((r) => r.endsWith('network'))).toHaveLength(1);
    expect(lite.requests.filter((r) => r.endsWith(' ok'))).toHaveLength(4);
  });

  it.each([
    ['refuse', 'network'],
    ['hang', 'timeout'],
    ['garbage', 'bad_body'],
    ['error', 'liteserver_error_651'],
  ] as const)('counts the %s fault as %s, fails over to HTTP, and comes back when it clears', async (fault, code) => {
    const sim = await running.sim({ seed: 9, liteserverPort: 0 });
    const lite = clientFor([liteSettings(sim, { timeoutMs: 400 }), { kind: 'http', name: 'http', url: sim.url, rps: 1000, timeoutMs: 1500 }]);
    expect((await lite.client.fetchQueueSizes()).ok).toBe(true);
    await control(sim, `fault=${fault}`);
    const failedOver = await lite.client.fetchQueueSizes();
    expect(failedOver.ok && failedOver.value.upstream).toBe('http');
    expect(lite.requests).toContain(`lite queue_sizes ${code}`);
    await control(sim, 'fault=none');
    // A liteserver that failed is passed over for a while, unless it is the only one: ask it alone.
    const back = clientFor([liteSettings(sim)]);
    const recovered = await back.client.fetchQueueSizes();
    expect(recovered.ok && recovered.value.upstream).toBe('lite');
  });

  it('tells its tip for the lag check, with no indexer', async () => {
    const sim = await running.sim({ seed: 10, liteserverPort: 0 });
    const lite = clientFor([liteSettings(sim)]);
    const [tip] = await lite.client.fetchTips();
    expect(tip).toEqual({ upstream: 'lite', seqno: sim.sim.chain.queues()[0]?.seqno, indexerSeqno: null });
    expect(lite.requests).toEqual(['lite lag_check ok']);
  });
});
