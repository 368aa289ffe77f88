import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTonwatch, type RunningProcess } from '../helpers/process.js';
import { redisServerPath, startRedis, type RunningRedis } from '../helpers/redis.js';
import { startReplica, type StartedReplica } from '../helpers/cluster.js';

const redisBin = redisServerPath();
const ACCOUNTS = 400;
/** Shared by the cluster: a share of 200 wallets takes 20 batches, about 10 s while both replicas poll, so a member's death falls mid-cycle. */
const RPS = 4;
const TICK_SECONDS = 20;
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
    for (const id of ['a', 'b']) {
      replicas.push(
        await startReplica({
          dir,
          id,
          redisUrl: redis.url,
          cluster: { name: 'takeover', memberTtlSeconds: TTL_SECONDS },
          body: `
upstreams: [ { name: sim, url: "${simUrl}", rps: ${RPS}, timeoutMs: 3000 } ]
schedule: { queueSizes: "*/5 * * * * *", wallets: "*/${TICK_SECONDS} * * * * *" }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 300 }
walletBatchSize: 10
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
    // Both replicas polling their own share, each of the other's joined: settled once each served every wallet.
    const servesAll = async (url: string) => {
      const query = accounts.map((a) => `address=${a.raw}`).join('&');
      const json = (await (await fetch(`${url}/api/v3/walletStates?${query}`)).json()) as { wallets?: unknown[] };
      return json.wallets?.length === ACCOUNTS ? true : undefined;
    };
    await eventually(async () => (await servesAll(survivor.url)) && servesAll(victim.url), 60_000, 'both replicas serving every wallet');
    // Both idle (the cycle run at start has ended), so that the next tick starts a cycle on each.
    const idle = (proc: RunningProcess) => (logLines(proc).some((l) => l.msg === 'wallet cycle done') ? true : undefined);
    await eventually(async () => idle(survivor.proc) && idle(victim.proc), 60_000, 'both first cycles ending');
    // Killed just after a tick: both cycles have begun, and the survivor takes the victim's share over TTL_SECONDS later.
    const tickMs = TICK_SECONDS * 1000;
    await new Promise((r) => setTimeout(r, tickMs - (Date.now() % tickMs) + 1_500));
    const tickAt = Date.now() - 1_500;
    const owned = async (url: string) => Number(/^tonwatch_cluster_owned_wallets (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1]);
    const [ownShare, victimShare] = [await owned(survivor.url), await owned(victim.url)];
    expect(ownShare + victimShare).toBe(ACCOUNTS);
    await victim.proc.stop('SIGKILL');

    const cycleDone = (): LogLine | undefined => logLines(survivor.proc).find((l) => l.msg === 'wallet cycle done' && l.time > tickAt);
    await eventually(async () => cycleDone(), 60_000, "the survivor's cycle ending");
    const taken = logLines(survivor.proc).find((l) => l.msg === 'polled the wallets taken over' && l.time > tickAt);
    expect(taken, 'the takeover, logged during the cycle').toMatchObject({ during: 'cycle', failed: 0, notAsked: 0, ok: true });
    // The victim's wallets not fetched since the tick: most of its share.
    expect(taken?.['wallets']).toBeGreaterThan(victimShare / 2);
    expect(taken?.time).toBeLessThan(cycleDone()?.time ?? 0);
    // The cycle asked its own share and what it took over, each wallet once, and no run after it asks them again.
    expect(cycleDone()).toMatchObject({ fetched: ownShare + Number(taken?.['wallets']), failed: 0 });
    await new Promise((r) => setTimeout(r, 1_000));
    const after = logLines(survivor.proc).filter((l) => l.msg === 'polled the wallets taken over' && l.time > tickAt);
    expect(after).toHaveLength(1);
    expect(await servesAll(survivor.url)).toBe(true);
  }, 150_000);
});
