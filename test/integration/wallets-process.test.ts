import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, findTool, startTonwatch, type RunningProcess } from '../helpers/process.js';

/** The real daemon with a watchlist file, against the real simulator process. */
describe('wallet watchlist, real processes', () => {
  let sim: RunningProcess;
  let daemon: RunningProcess;
  let simUrl: string;
  let url: string;
  let accounts: { raw: string; kind: string; balance: string; seqno: number; lt: string }[];

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-wallets-'));
    sim = startTonwatch(['simulate', '--port', '0', '--block-ms', '0', '--accounts', '300', '--seed', '4']);
    simUrl = (await sim.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    accounts = (await (await fetch(`${simUrl}/_sim/accounts`)).json()) as typeof accounts;
    const lines = accounts.map((a, i) => `${i % 2 ? a.raw.toLowerCase() : a.raw},w${i}`);
    await writeFile(join(dir, 'watch.txt'), `# simulated accounts\n${lines.join('\n')}\n0:${'EE'.repeat(32)},ghost\n`);
    await writeFile(
      join(dir, 'tonwatch.yml'),
      `listen: { host: 127.0.0.1, port: 0 }
upstreams: [ { name: sim, url: "${simUrl}", rps: 50, timeoutMs: 2000 } ]
schedule: { queueSizes: "*/2 * * * * *", wallets: "* * * * * *" }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 60 }
watchlistFiles: [ ./watch.txt ]
watchlist:
  - { address: "${accounts[0]?.raw}", name: hot-1, labels: { team: payments }, minBalanceTons: 100 }
`,
    );
    daemon = startTonwatch(['--config', join(dir, 'tonwatch.yml')]);
    url = (await daemon.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/))[1] ?? '';
    await eventually(async () => ((await fetch(`${url}/readyz`)).status === 200 ? true : undefined), 20_000, 'readiness');
  });

  afterAll(async () => {
    await daemon?.stop('SIGKILL');
    await sim?.stop('SIGKILL');
  });

  it("serves the simulator's wallet states and exports them as metrics", async () => {
    const some = accounts.slice(0, 20);
    const response = await fetch(`${url}/api/v3/walletStates?${some.map((a) => `address=${encodeURIComponent(a.raw)}`).join('&')}`);
    expect(response.status).toBe(200);
    const json = (await response.json()) as {
      wallets: { address: string; balance?: string; seqno?: number; status: string }[];
      address_book: Record<string, unknown>;
    };
    // The simulated indexer knows every one of them (nonexist accounts included), so all are served, in request order.
    expect(json.wallets.map((w) => w.address)).toEqual(some.map((a) => a.raw));
    for (const account of some) {
      const served = json.wallets.find((w) => w.address === account.raw);
      // A nonexist account has no balance: left out, as the indexer does.
      expect(served?.balance).toBe(account.kind === 'nonexist' ? undefined : account.balance);
    }
    expect(Object.keys(json.address_book)).toHaveLength(20);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/ton_wallet_status\{address="0:E{64}",name="ghost",status="unknown"\} 1/);
    expect(metrics).toContain(`ton_wallet_min_balance_tons{address="${accounts[0]?.raw}",name="hot-1",team="payments"} 100`);
    expect(metrics).toContain('tonwatch_watchlist_size 301');
    expect(metrics).toContain('tonwatch_up{query="wallets"} 1');
  });

  it('answers a GET carrying 1024 raw addresses', async () => {
    const list = Array.from({ length: 1024 }, (_, i) => accounts[i % accounts.length]?.raw ?? '');
    const target = `${url}/api/v3/walletStates?${list.map((a) => `address=${encodeURIComponent(a)}`).join('&')}`;
    // About 77 KiB of request line: well past common 8 KiB proxy limits, inside ours.
    expect(target.length).toBeGreaterThan(75_000);
    const response = await fetch(target);
    expect(response.status).toBe(200);
    const json = (await response.json()) as { wallets: unknown[] };
    expect(json.wallets).toHaveLength(300);
  });

  it('passes promtool check metrics with every wallet series', async (ctx) => {
    const promtool = findTool('promtool');
    if (!promtool) return ctx.skip("promtool not installed (CI installs Debian's prometheus package)");
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const result = spawnSync(promtool, ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
    expect(result.error).toBeUndefined();
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
