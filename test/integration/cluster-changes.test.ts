import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTonwatch, type RunningProcess } from '../helpers/process.js';
import { redisServerPath, startRedis, type RunningRedis } from '../helpers/redis.js';
import { startReplica as startClusterReplica } from '../helpers/cluster.js';

const redisBin = redisServerPath();
const ACCOUNTS = 240;
/** Short, so that a replica that did not advance the others' wallets would stop serving them within the test. */
const MAX_AGE_SECONDS = 6;
const HASH = 'tonwatch:{changes}:part:wallets';
const STREAM = 'tonwatch:{changes}:updates';

interface Account {
  raw: string;
  kind: string;
  balance: string;
}

/** Stream entries of the wallets channel since `from` (a stream id): bytes of record lines and of markers, and records by address. */
async function walletEntries(redis: RunningRedis, from: string) {
  const entries = await redis.client().xrange(STREAM, from, '+');
  let recordBytes = 0;
  let markerBytes = 0;
  const records: string[] = [];
  for (const [, flat] of entries) {
    const fields = new Map<string, string>();
    for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i] as string, flat[i + 1] as string);
    if (fields.get('k') !== 'wallets') continue;
    const data = fields.get('d');
    const markers = fields.get('m');
    if (data !== undefined) {
      recordBytes += Buffer.byteLength(data);
      records.push(...data.split('\n'));
    }
    if (markers !== undefined) markerBytes += Buffer.byteLength(markers);
  }
  return { recordBytes, markerBytes, records };
}

/** Two replicas on a chain that moves only when the test steps it: what a steady cycle writes, and what readers make of it. */
describe.skipIf(redisBin === null)('cluster sharing what changed, real processes', () => {
  let redis: RunningRedis;
  let sim: RunningProcess;
  let simUrl = '';
  let dir = '';
  let accounts: Account[] = [];
  const replicas: { url: string; proc: RunningProcess }[] = [];

  /** The balances a replica serves for the whole watchlist (a wallet it holds stale is left out). */
  const served = async (url: string): Promise<Map<string, string | undefined>> => {
    const query = accounts.map((a) => `address=${a.raw}`).join('&');
    const json = (await (await fetch(`${url}/api/v3/walletStates?${query}`)).json()) as { wallets?: { address: string; balance?: string }[] };
    return new Map((json.wallets ?? []).map((w) => [w.address, w.balance]));
  };
  const lastId = async (): Promise<string> => (await redis.client().xrevrange(STREAM, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
  const after = (id: string): string => {
    const [ms, seq] = id.split('-');
    return `${ms}-${Number(seq) + 1}`;
  };

  async function startReplica(id: string, watchFile: string): Promise<void> {
    const started = await startClusterReplica({
      dir,
      id,
      redisUrl: redis.url,
      cluster: { name: 'changes', memberTtlSeconds: 3 },
      body: `
upstreams: [ { name: sim, url: "${simUrl}", rps: 50, timeoutMs: 3000 } ]
schedule: { queueSizes: "*/2 * * * * *", wallets: "*/2 * * * * *" }
snapshot: { file: ./snapshot.json, maxAgeSeconds: ${MAX_AGE_SECONDS} }
walletBatchSize: 50
watchlistFiles: [ ${watchFile} ]`,
    });
    replicas.push({ url: started.url, proc: started.proc });
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-changes-'));
    redis = await startRedis(redisBin as string);
    sim = startTonwatch(['simulate', '--port', '0', '--block-ms', '0', '--accounts', String(ACCOUNTS), '--seed', '12']);
    simUrl = (await sim.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    accounts = (await (await fetch(`${simUrl}/_sim/accounts`)).json()) as Account[];
    await writeFile(join(dir, 'watch.txt'), `${accounts.map((a) => a.raw).join('\n')}\n`);
    for (const id of ['a', 'b']) await startReplica(id, join(dir, 'watch.txt'));
    await eventually(
      async () => {
        for (const { url } of replicas) if ((await served(url)).size !== ACCOUNTS) return undefined;
        return true;
      },
      30_000,
      'both replicas serving every wallet',
    );
  }, 60_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.proc.stop('SIGKILL')));
    await sim?.stop('SIGKILL');
    await redis?.stop();
  });

  it('writes only markers in a steady cycle, under 5 % of a full share, and every replica keeps serving every wallet past maxAgeSeconds', async () => {
    // Settled: the first cycles shared every record once.
    await new Promise((r) => setTimeout(r, 3_000));
    const from = after(await lastId());
    await new Promise((r) => setTimeout(r, (MAX_AGE_SECONDS + 3) * 1000));
    const steady = await walletEntries(redis, from);
    expect(steady.records).toEqual([]);
    expect(steady.markerBytes).toBeGreaterThan(0);
    // A full share: every record's line, as the hash holds them; a steady cycle is several cycles here.
    const fields = await redis.client().hgetall(HASH);
    const fullShare = Object.values(fields).reduce((sum, line) => sum + Buffer.byteLength(line), 0);
    expect(Object.keys(fields)).toHaveLength(ACCOUNTS);
    const cycles = (MAX_AGE_SECONDS + 3) / 2;
    expect(steady.markerBytes / cycles).toBeLessThan(fullShare * 0.05);
    // Nothing was polled again by the reader, yet it serves the other's wallets as fresh, well past maxAgeSeconds.
    for (const { url } of replicas) {
      const balances = await served(url);
      expect(balances.size, url).toBe(ACCOUNTS);
      for (const account of accounts) expect(balances.get(account.raw), url).toBe(account.kind === 'nonexist' ? undefined : account.balance);
    }
  }, 30_000);

  it('shares exactly the wallets that changed, and every replica serves their new balances', async () => {
    const from = after(await lastId());
    await fetch(`${simUrl}/_sim/step?n=3`);
    const moved = ((await (await fetch(`${simUrl}/_sim/accounts`)).json()) as Account[]).filter((a, i) => a.balance !== (accounts[i] as Account).balance);
    expect(moved.length).toBeGreaterThan(0);
    expect(moved.length).toBeLessThan(ACCOUNTS / 2);
    await eventually(
      async () => {
        for (const { url } of replicas) {
          const balances = await served(url);
          if (moved.some((a) => balances.get(a.raw) !== a.balance)) return undefined;
        }
        return true;
      },
      15_000,
      'both replicas serving the new balances',
    );
    const shared = await walletEntries(redis, from);
    const sharedAddresses = new Set(shared.records.map((line) => /"(-?\d:[0-9A-F]{64})"/.exec(line)?.[1]));
    for (const account of moved) expect(sharedAddresses.has(account.raw), account.raw).toBe(true);
    // Only wallets with a new state (their last transaction moved with the balance, or with a message that left it as it was).
    expect(sharedAddresses.size).toBeLessThan(ACCOUNTS / 2);
  }, 30_000);

  it('takes wallets dropped from the watchlist out of the shared hash', async () => {
    const kept = accounts.slice(0, ACCOUNTS - 40);
    await writeFile(join(dir, 'watch.txt'), `${kept.map((a) => a.raw).join('\n')}\n`);
    await eventually(async () => ((await redis.client().hlen(HASH)) === kept.length ? true : undefined), 20_000, 'the hash holding only the watchlist');
    const fields = await redis.client().hkeys(HASH);
    expect(new Set(fields)).toEqual(new Set(kept.map((a) => a.raw)));
  }, 30_000);
});
