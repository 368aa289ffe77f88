import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, findTool, freePort, startTonwatch, type RunningProcess } from '../helpers/process.js';
import { dashboardExpressions, SINGLE_PROCESS_NOTE, substituteVariables } from '../helpers/promql.js';
import { redisServerPath, startRedis, type RunningRedis } from '../helpers/redis.js';
import { startReplica as startClusterReplica } from '../helpers/cluster.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const redisBin = redisServerPath();
const prometheusBin = findTool('prometheus');

/** Members' heartbeats expire after this; a dead replica's wallets move within it plus a cycle. */
const TTL_SECONDS = 3;
const RPS = 10;
const BURST = RPS / 2;
const ACCOUNTS = 300;

interface Account {
  raw: string;
  kind: string;
  balance: string;
  seqno: number;
  lt: string;
}
interface Replica {
  readonly id: string;
  readonly port: number;
  readonly url: string;
  proc: RunningProcess;
}

/** Three tonwatch replicas, one simulator on one API key at a fixed rps, one redis-server, all real processes on loopback. */
describe.skipIf(redisBin === null)('cluster mode, real processes', () => {
  let redis: RunningRedis;
  let sim: RunningProcess;
  let simUrl: string;
  let dir: string;
  let accounts: Account[];
  const replicas = new Map<string, Replica>();
  let prometheus: ChildProcess | undefined;
  let promUrl = '';

  const metricsOf = async (replica: Replica): Promise<string> => (await fetch(`${replica.url}/metrics`)).text();
  const gauge = (text: string, name: string): number | undefined => {
    const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
    return match ? Number(match[1]) : undefined;
  };
  const live = () => [...replicas.values()].filter((r) => r.proc.child.exitCode === null && r.proc.child.signalCode === null);
  /** Addresses each live replica exports ton_wallet_status for. */
  const exported = async (): Promise<Map<string, number>> => {
    const counts = new Map<string, number>();
    for (const replica of live()) {
      for (const match of (await metricsOf(replica)).matchAll(/^ton_wallet_status\{address="([^"]+)"/gm)) {
        counts.set(match[1] as string, (counts.get(match[1] as string) ?? 0) + 1);
      }
    }
    return counts;
  };
  const servedBy = async (replica: Replica): Promise<number> => {
    const query = accounts.map((a) => `address=${a.raw}`).join('&');
    const json = (await (await fetch(`${replica.url}/api/v3/walletStates?${query}`)).json()) as { wallets?: unknown[] };
    return json.wallets?.length ?? 0;
  };
  /** The cluster has settled: every live replica sees them all and serves every wallet, and every wallet is exported exactly once. */
  const settled = async (): Promise<true | undefined> => {
    for (const replica of live()) {
      const text = await metricsOf(replica);
      if (gauge(text, 'tonwatch_cluster_members') !== live().length || gauge(text, 'tonwatch_cluster_redis_up') !== 1) return undefined;
      if ((await servedBy(replica)) !== ACCOUNTS) return undefined;
    }
    const counts = await exported();
    return counts.size === ACCOUNTS && [...counts.values()].every((n) => n === 1) ? true : undefined;
  };
  const load = async (reset = false) =>
    (await (await fetch(`${simUrl}/_sim/load${reset ? '?reset=1' : ''}`)).json()) as {
      maxPerSecond: number;
      requests: number;
      addresses: Record<string, number>;
    };
  const rateLimited = async () => ((await (await fetch(`${simUrl}/_sim/state`)).json()) as { stats: Record<string, number> }).stats['429'] ?? 0;

  async function startReplica(id: string): Promise<Replica> {
    const started = await startClusterReplica({
      dir,
      id,
      redisUrl: redis.url,
      cluster: { name: 'test', memberTtlSeconds: TTL_SECONDS },
      body: `
upstreams: [ { name: sim, url: "${simUrl}", apiKey: one-key, rps: ${RPS}, timeoutMs: 3000 } ]
schedule: { queueSizes: "*/2 * * * * *", wallets: "*/3 * * * * *" }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 60 }
walletBatchSize: 100
readThrough: { enabled: true, ttlSeconds: 60 }
watchlistFiles: [ ../watch.txt ]`,
    });
    const replica = { id, ...started };
    replicas.set(id, replica);
    return replica;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-cluster-'));
    redis = await startRedis(redisBin as string);
    sim = startTonwatch(['simulate', '--port', '0', '--block-ms', '0', '--accounts', String(ACCOUNTS), '--seed', '9', '--rps', String(RPS)]);
    simUrl = (await sim.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    accounts = (await (await fetch(`${simUrl}/_sim/accounts`)).json()) as Account[];
    await writeFile(join(dir, 'watch.txt'), `${accounts.map((a, i) => `${a.raw},w${i}`).join('\n')}\n`);
    for (const id of ['r1', 'r2', 'r3']) await startReplica(id);
    await eventually(settled, 30_000, 'three replicas sharing the watchlist');
  }, 60_000);

  afterAll(async () => {
    prometheus?.kill('SIGKILL');
    await Promise.all([...replicas.values()].map((r) => r.proc.stop('SIGKILL')));
    await sim?.stop('SIGKILL');
    await redis?.stop();
  });

  /** Each replica's walletStates for the whole watchlist, against the simulator's accounts. */
  async function expectEveryReplicaServesAll(): Promise<void> {
    const query = accounts.map((a) => `address=${a.raw}`).join('&');
    for (const replica of live()) {
      const json = (await (await fetch(`${replica.url}/api/v3/walletStates?${query}`)).json()) as {
        wallets: { address: string; balance?: string; last_transaction_lt?: string }[];
      };
      expect(
        json.wallets.map((w) => w.address),
        replica.id,
      ).toEqual(accounts.map((a) => a.raw));
      for (const [i, wallet] of json.wallets.entries()) {
        const account = accounts[i] as Account;
        expect(wallet.balance, `${replica.id} ${account.raw}`).toBe(account.kind === 'nonexist' ? undefined : account.balance);
      }
    }
  }

  it('exports each wallet on exactly one replica, and every replica serves every wallet with the simulator’s values', async () => {
    const owned = await Promise.all(live().map(async (r) => gauge(await metricsOf(r), 'tonwatch_cluster_owned_wallets') ?? 0));
    expect(owned.reduce((a, b) => a + b, 0)).toBe(ACCOUNTS);
    for (const share of owned) expect(share).toBeGreaterThan(ACCOUNTS / 6);
    const leaders = await Promise.all(live().map(async (r) => gauge(await metricsOf(r), 'tonwatch_cluster_leader')));
    expect(leaders.filter((l) => l === 1)).toHaveLength(1);
    // Only the leader exports the queue sizes; every replica serves them.
    const queueExporters = await Promise.all(live().map(async (r) => /^ton_out_msg_queue_size\{/m.test(await metricsOf(r))));
    expect(queueExporters.filter(Boolean)).toHaveLength(1);
    for (const replica of live()) expect((await fetch(`${replica.url}/api/v2/getOutMsgQueueSizes`)).status).toBe(200);
    await expectEveryReplicaServesAll();
  });

  it('polls each wallet once per cycle, by one replica', async () => {
    await load(true);
    await new Promise((r) => setTimeout(r, 12_500));
    const asked = (await load()).addresses;
    const counts = accounts.map((a) => asked[a.raw] ?? 0);
    const sorted = [...counts].sort((a, b) => a - b);
    const typical = sorted[Math.floor(sorted.length / 2)] as number;
    // Wallet cycles every 3 s on every replica: about 4 in 12.5 s. Polled by two replicas, a wallet would be asked about 8 times.
    expect(typical).toBeGreaterThanOrEqual(3);
    expect(typical).toBeLessThanOrEqual(5);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(typical - 1);
    expect(Math.max(...counts)).toBeLessThanOrEqual(typical + 1);
  }, 30_000);

  it('sends no more in any second than one process may (rps plus one burst), with no 429, under read-through pressure on every replica', async () => {
    const before = await rateLimited();
    await load(true);
    const until = Date.now() + 6_000;
    let n = 0;
    const unwatched = () => `0:${(++n).toString(16).padStart(8, '0')}${'AB'.repeat(28)}`;
    await Promise.all(
      Array.from({ length: 12 }, async (_, worker) => {
        while (Date.now() < until) {
          const replica = live()[worker % live().length] as Replica;
          const query = Array.from({ length: 5 }, () => `address=${unwatched()}`).join('&');
          await fetch(`${replica.url}/api/v3/walletStates?${query}`).then((r) => r.arrayBuffer());
        }
      }),
    );
    const seen = await load();
    // The flood asked far more than the budget: the budget, not the test, set the pace.
    expect(seen.requests).toBeGreaterThan(RPS * 4);
    expect(seen.maxPerSecond).toBeLessThanOrEqual(RPS + BURST);
    expect(await rateLimited()).toBe(before);
  }, 30_000);

  it('keeps every wallet exported once in a real Prometheus scraping all replicas', async (ctx) => {
    if (!prometheusBin) return ctx.skip("prometheus not installed (CI installs Debian's prometheus package)");
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    const targets = live().map((r) => `"127.0.0.1:${r.port}"`);
    await writeFile(
      join(dir, 'prometheus.yml'),
      `global: { scrape_interval: 1s, evaluation_interval: 1s }\nscrape_configs:\n  - job_name: tonwatch\n    static_configs: [ { targets: [ ${targets.join(', ')} ] } ]\n`,
    );
    prometheus = spawn(
      prometheusBin,
      [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'prom')}`, `--web.listen-address=127.0.0.1:${port}`],
      {
        stdio: 'ignore',
      },
    );
    await eventually(async () => ((await promValue('count(up{job="tonwatch"} == 1)')) === 3 ? true : undefined), 30_000, 'Prometheus scraping three replicas');
    await eventually(
      async () => ((await promValue('count(count by (address) (ton_wallet_status))')) === ACCOUNTS ? true : undefined),
      20_000,
      'every wallet in Prometheus',
    );
    expect(await promValue('max(count by (address) (ton_wallet_balance_tons))')).toBe(1);
    expect(await promValue('max(count by (address) (ton_wallet_status))')).toBe(1);
    expect(await promValue('count(ton_out_msg_queue_size{workchain="-1"})')).toBe(1);
    // The health dashboard's cluster row, empty for a single process, has data here.
    const health = JSON.parse(await readFile(join(ROOT, 'dashboards/grafana/dashboards/health.json'), 'utf8')) as never;
    const clusterPanels = dashboardExpressions('health.json', health).filter((p) => p.description.includes(SINGLE_PROCESS_NOTE));
    expect(clusterPanels.length).toBeGreaterThanOrEqual(4);
    for (const { panel, expr } of clusterPanels) {
      const substituted = substituteVariables(expr, '30s');
      await eventually(async () => ((await promCount(substituted)) > 0 ? true : undefined), 10_000, `data for ${panel}: ${substituted}`);
    }
  }, 60_000);

  async function promCount(expr: string): Promise<number> {
    const body = (await (await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`)).json()) as { data: { result: unknown[] } };
    return body.data.result.length;
  }

  async function promValue(expr: string): Promise<number | undefined> {
    const body = (await (await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`)).json()) as {
      data: { result: { value: [number, string] }[] };
    };
    const value = body.data.result[0]?.value[1];
    return value === undefined ? undefined : Number(value);
  }

  it('after kill -9 of a replica, its wallets are polled by the others within memberTtlSeconds plus one cycle', async () => {
    const leader = await leaderId();
    const victim = live().find((r) => r.id !== leader) as Replica;
    await victim.proc.stop('SIGKILL');
    await load(true);
    const killed = Date.now();
    await eventually(settled, (TTL_SECONDS + 8) * 1000, 'the two others owning every wallet');
    const movedAfter = Date.now() - killed;
    expect(movedAfter).toBeLessThan((TTL_SECONDS + 3) * 1000);
    // One wallet cycle (3 s) later, every wallet has been asked for again, the victim's too.
    await new Promise((r) => setTimeout(r, 4_000));
    const asked = (await load()).addresses;
    expect(accounts.filter((a) => (asked[a.raw] ?? 0) === 0)).toEqual([]);
    if (prometheus) {
      await new Promise((r) => setTimeout(r, 2_000));
      expect(await promValue('max(count by (address) (ton_wallet_balance_tons))')).toBe(1);
      expect(await promValue('count(count by (address) (ton_wallet_status))')).toBe(ACCOUNTS);
    }
  }, 40_000);

  async function leaderId(): Promise<string | undefined> {
    for (const replica of live()) if (gauge(await metricsOf(replica), 'tonwatch_cluster_leader') === 1) return replica.id;
    return undefined;
  }

  it('after kill -9 of the queue poller, another replica leads and the queue sizes stay fresh', async () => {
    const leader = replicas.get((await leaderId()) ?? '') as Replica;
    await leader.proc.stop('SIGKILL');
    const next = await eventually(async () => leaderId(), (TTL_SECONDS + 3) * 1000, 'a new leader');
    expect(next).not.toBe(leader.id);
    const survivor = replicas.get(next) as Replica;
    await eventually(
      async () => ((gauge(await metricsOf(survivor), 'tonwatch_snapshot_age_seconds\\{query="queue_sizes"\\}') ?? 99) < 3 ? true : undefined),
      6_000,
      'fresh queue sizes polled by the new leader',
    );
    await eventually(settled, 15_000, 'the last replica owning every wallet');
  }, 30_000);

  it('a replica started late serves the whole watchlist within seconds of joining', async () => {
    const started = Date.now();
    const late = await startReplica('r4');
    await eventually(async () => ((await servedBy(late)) === ACCOUNTS ? true : undefined), 10_000, 'the late replica serving every wallet');
    expect(Date.now() - started).toBeLessThan(10_000);
    await eventually(settled, 15_000, 'two replicas sharing the watchlist');
    await expectEveryReplicaServesAll();
  }, 40_000);

  it('survives Redis stopped for 20 s: every replica keeps serving and ready, says so in its metrics, and the cluster is whole again after', async () => {
    await redis.kill();
    const until = Date.now() + 20_000;
    let sawDegraded = false;
    while (Date.now() < until) {
      for (const replica of live()) {
        expect((await fetch(`${replica.url}/readyz`)).status).toBe(200);
        const answer = await fetch(`${replica.url}/api/v3/walletStates?address=${accounts[0]?.raw}`);
        expect(answer.status).toBe(200);
        if (gauge(await metricsOf(replica), 'tonwatch_cluster_redis_up') === 0) sawDegraded = true;
      }
      // Without Redis each keeps its last share: still one export per wallet.
      expect([...(await exported()).values()].every((n) => n === 1)).toBe(true);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    expect(sawDegraded).toBe(true);
    await redis.restart();
    await eventually(settled, 20_000, 'the cluster whole again');
    expect(live().every((r) => r.proc.child.exitCode === null)).toBe(true);
    await expectEveryReplicaServesAll();
  }, 60_000);
});
