import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, startTonwatch, type RunningProcess } from '../helpers/process.js';
import { redisServerPath, startRedis, type RunningRedis } from '../helpers/redis.js';
import { startReplica, type StartedReplica } from '../helpers/cluster.js';

const redisBin = redisServerPath();
const ACCOUNTS = 400;
/**
 * The survivor's budget, 4 wallets a batch, a cycle begun every second: its share of about
 * 200 wallets takes about 50 batches, 12 s, well past the 3–6 s the member list takes to
 * drop the victim after the kill, so the victim's death falls mid-cycle. The victim polls
 * an upstream that refuses every connection: none of its share is fetched when it dies.
 */
const RPS = 4;
const BATCH = 4;
const TTL_SECONDS = 3;

interface LogLine {
  readonly time: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

const logLines = (proc: RunningProcess): LogLine[] =>
  proc
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

/** A member killed while the other's cycle runs: the survivor polls what it took over first, and serves it before its own cycle ends. */
describe.skipIf(redisBin === null)('a cluster member killed mid-cycle, real processes', () => {
  let redis: RunningRedis;
  let sim: RunningProcess;
  let dir = '';
  let accounts: { raw: string }[] = [];
  const replicas: StartedReplica[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-takeover-'));
    redis = await startRedis(redisBin as string);
    sim = startTonwatch(['simulate', '--port', '0', '--block-ms', '0', '--accounts', String(ACCOUNTS), '--seed', '21']);
    const simUrl = (await sim.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    accounts = (await (await fetch(`${simUrl}/_sim/accounts`)).json()) as { raw: string }[];
    await writeFile(join(dir, 'watch.txt'), `${accounts.map((a) => a.raw).join('\n')}\n`);
    for (const [id, upstream] of [
      ['a', `{ name: sim, url: "${simUrl}", rps: ${RPS}, timeoutMs: 3000 }`],
      ['b', `{ name: refused, url: "http://127.0.0.1:${await freePort()}", rps: ${RPS}, timeoutMs: 3000 }`],
    ] as const) {
      replicas.push(
        await startReplica({
          dir,
          id,
          redisUrl: redis.url,
          cluster: { name: 'takeover', memberTtlSeconds: TTL_SECONDS },
          body: `
upstreams: [ ${upstream} ]
schedule: { queueSizes: "*/5 * * * * *", wallets: "* * * * * *" }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 300 }
walletBatchSize: ${BATCH}
retry: { attempts: 1 }
log: { level: debug }
watchlistFiles: [ ../watch.txt ]`,
        }),
      );
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.proc.stop('SIGKILL')));
    await sim?.stop('SIGKILL');
    await redis?.stop();
  });

  it('polls the wallets it took over ahead of its own share, and publishes them before its cycle ends', async () => {
    const [survivor, victim] = replicas as [StartedReplica, StartedReplica];
    const owned = async (url: string) => Number(/^tonwatch_cluster_owned_wallets (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1]);
    // Both own a part, and the parts make the watchlist (before the join is seen, one owns all of it).
    const shares = async () => [await owned(survivor.url), await owned(victim.url)] as const;
    const [ownShare, victimShare] = await eventually(
      async () => {
        const [own, victims] = await shares();
        return own > 0 && victims > 0 && own + victims === ACCOUNTS ? ([own, victims] as const) : undefined;
      },
      30_000,
      'the watchlist shared',
    );
    const cyclesDone = () => logLines(survivor.proc).filter((l) => l.msg === 'wallet cycle done');
    // A cycle of the survivor's own share has ended; the next begins within a second: killed just after it began.
    const before = cyclesDone().length;
    await eventually(async () => (cyclesDone().length > before ? true : undefined), 60_000, 'a cycle of the survivor ending');
    await new Promise((r) => setTimeout(r, 1_500));
    const killedAt = Date.now();
    await victim.proc.stop('SIGKILL');

    const cycleDone = (): LogLine | undefined => cyclesDone().find((l) => l.time > killedAt);
    await eventually(async () => cycleDone(), 60_000, "the survivor's cycle ending");
    const taken = logLines(survivor.proc).find((l) => l.msg === 'polled the wallets taken over' && l.time > killedAt);
    expect(taken, 'the takeover, logged during the cycle').toMatchObject({ during: 'cycle', failed: 0, notAsked: 0, ok: true, wallets: victimShare });
    expect(taken?.time).toBeLessThan(cycleDone()?.time ?? 0);
    // The cycle asked its own share and what it took over, each wallet once.
    expect(cycleDone()).toMatchObject({ fetched: ownShare + victimShare, failed: 0 });
    const query = accounts.map((a) => `address=${a.raw}`).join('&');
    const served = (await (await fetch(`${survivor.url}/api/v3/walletStates?${query}`)).json()) as { wallets?: unknown[] };
    expect(served.wallets).toHaveLength(ACCOUNTS);
  }, 120_000);
});
