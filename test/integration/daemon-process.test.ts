import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signedShardToHex } from '../../src/ton/shard.js';
import { eventually, findTool, startTonwatch, type RunningProcess } from '../helpers/process.js';

/**
 * The real `tonwatch` process against the real simulator process, on loopback only:
 * served endpoint and /metrics against the simulator's own state, the upstream killed and
 * restored, the persisted snapshot served at start, SIGTERM.
 */

const get = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, headers: response.headers, text: await response.text() };
};

describe('tonwatch process against the simulator process', () => {
  // Each test has its own folder, simulator process and daemon process: none depends on
  // what another did or on the order they run in.
  let dir: string;
  let sim: RunningProcess;
  let simUrl: string;
  let daemon: RunningProcess;
  let daemonUrl: string;
  const configFor = (upstreamUrl: string) => `
listen: { host: 127.0.0.1, port: 0 }
upstreams:
  - { name: sim, url: "${upstreamUrl}", rps: 50, timeoutMs: 1000 }
schedule: { queueSizes: "* * * * * *", wallets: "*/5 * * * * *" }
retry: { attempts: 1, baseDelayMs: 50, maxDelayMs: 200 }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 3 }
log: { level: debug }
`;

  const startSimProcess = async (port: number) => {
    const proc = startTonwatch(['simulate', '--port', String(port), '--block-ms', '0', '--seed', '11']);
    const [, url] = await proc.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    return { proc, url: url ?? '' };
  };
  const startDaemon = async () => {
    const proc = startTonwatch(['--config', join(dir, 'tonwatch.yml')]);
    const [, url] = await proc.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    return { proc, url: url ?? '' };
  };
  const servingQueueSizes = () =>
    eventually(async () => ((await get(`${daemonUrl}/api/v2/getOutMsgQueueSizes`)).status === 200 ? true : undefined), 15_000, 'the first queue-size poll');

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-it-'));
    ({ proc: sim, url: simUrl } = await startSimProcess(0));
    await writeFile(join(dir, 'tonwatch.yml'), configFor(simUrl));
    ({ proc: daemon, url: daemonUrl } = await startDaemon());
  });

  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    await sim?.stop('SIGKILL');
  });

  it("serves exactly the simulator's shards, in toncenter's v2 format", async () => {
    const state = (await (await fetch(`${simUrl}/_sim/step?n=3`)).json()) as {
      queues: { workchain: number; shard: string; seqno: number; size: number; rootHash: string }[];
    };
    const served = await eventually(async () => {
      const r = await get(`${daemonUrl}/api/v2/getOutMsgQueueSizes`);
      const body = JSON.parse(r.text) as { ok: boolean; result: { shards: { id: { seqno: number } }[] } };
      return r.status === 200 && body.result.shards[0]?.id.seqno === state.queues[0]?.seqno ? body : undefined;
    });
    expect(served.result.shards).toEqual(
      state.queues.map((q) => ({
        '@type': 'blocks.outMsgQueueSize',
        id: {
          '@type': 'chain.blockIdExt',
          workchain: q.workchain,
          shard: q.shard,
          seqno: q.seqno,
          root_hash: q.rootHash,
          file_hash: expect.any(String) as unknown,
        },
        size: q.size,
      })),
    );
    expect((served.result as unknown as Record<string, unknown>)['@extra']).toMatch(/^\d+\.\d{3}:sim:snapshot$/);
    const alias = await get(`${daemonUrl}/api/v2/getOutMsgQueueSize?ignored=1`);
    expect(alias.status).toBe(200);

    const metrics = await get(`${daemonUrl}/metrics`);
    for (const q of state.queues) {
      const labels = `{workchain="${q.workchain}",shard="${signedShardToHex(q.shard)}"}`;
      expect(metrics.text).toContain(`ton_out_msg_queue_size${labels} ${q.size}\n`);
      expect(metrics.text).toContain(`ton_shard_block_seqno${labels} ${q.seqno}\n`);
      expect(metrics.text).toContain(`ton_out_msg_queue_pressure_ratio${labels} ${q.size / 8000}\n`);
    }
    expect(metrics.text).toContain('tonwatch_up{query="queue_sizes"} 1');
  });

  it('passes promtool check metrics', async (ctx) => {
    const promtool = findTool('promtool');
    if (!promtool) return ctx.skip("promtool not installed (CI installs Debian's prometheus package)");
    await servingQueueSizes();
    const metrics = await get(`${daemonUrl}/metrics`);
    expect(metrics.text).toMatch(/^ton_out_msg_queue_size\{/m);
    const result = spawnSync(promtool, ['check', 'metrics'], { input: metrics.text, encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('keeps answering while the upstream is down, goes 503 after maxAgeSeconds, and recovers by itself', async () => {
    await servingQueueSizes();
    const port = Number(new URL(simUrl).port);
    await sim.stop('SIGTERM');
    // Still answering; series vanish and the endpoint turns 503 once the data is older than 3 s.
    await eventually(async () => ((await get(`${daemonUrl}/api/v2/getOutMsgQueueSizes`)).status === 503 ? true : undefined), 15_000, '503 after maxAgeSeconds');
    const stale = await get(`${daemonUrl}/api/v2/getOutMsgQueueSizes`);
    expect(JSON.parse(stale.text)).toMatchObject({ ok: false, code: 503 });
    expect(stale.headers.get('retry-after')).toMatch(/^\d+$/);
    const metrics = await get(`${daemonUrl}/metrics`);
    expect(metrics.text).not.toMatch(/^ton_out_msg_queue_size/m);
    expect(metrics.text).toContain('tonwatch_up{query="queue_sizes"} 0');
    expect(metrics.text).toMatch(/tonwatch_upstream_requests_total\{upstream="sim",query="queue_sizes",code="network"\} \d+/);
    expect((await get(`${daemonUrl}/readyz`)).status).toBe(503);
    expect((await get(`${daemonUrl}/healthz`)).status).toBe(200);

    ({ proc: sim, url: simUrl } = await startSimProcess(port));
    await eventually(async () => ((await get(`${daemonUrl}/api/v2/getOutMsgQueueSizes`)).status === 200 ? true : undefined), 15_000, 'recovery');
    expect((await get(`${daemonUrl}/readyz`)).status).toBe(200);
    expect(daemon.output()).toMatch(/poll recovered/);
  });

  it('reloads a changed config file, and refuses a bad one keeping the old', async () => {
    await servingQueueSizes();
    const file = join(dir, 'tonwatch.yml');
    await writeFile(file, 'upstreams: [ { name: sim, url: "not a url" } ]\nbogus: 1\n');
    await daemon.waitFor(/new configuration refused/);
    let metrics = await eventually(async () => {
      const m = await get(`${daemonUrl}/metrics`);
      return /tonwatch_config_last_reload_successful 0/.test(m.text) ? m : undefined;
    });
    expect((await get(`${daemonUrl}/api/v2/getOutMsgQueueSizes`)).status).toBe(200);
    await writeFile(file, configFor(simUrl).replace('name: sim,', 'name: sim2,'));
    metrics = await eventually(async () => {
      const m = await get(`${daemonUrl}/metrics`);
      // The new upstream's queue poll, run at once by the reload (the lag check's series may show first).
      const polled = /tonwatch_upstream_requests_total\{upstream="sim2",query="queue_sizes",code="200"\}/.test(m.text);
      return /tonwatch_config_last_reload_successful 1/.test(m.text) && polled ? m : undefined;
    });
    expect(metrics.text).toMatch(/tonwatch_upstream_requests_total\{upstream="sim2",query="queue_sizes",code="200"\}/);
    const reloads = () => daemon.output().match(/configuration reloaded/g)?.length ?? 0;
    const before = reloads();
    daemon.child.kill('SIGHUP');
    await eventually(async () => (reloads() > before ? true : undefined), 10_000, 'a reload on SIGHUP');
  });

  it('stops on SIGTERM within 10 s with exit code 0, and a restart serves the persisted snapshot at once', async () => {
    await servingQueueSizes();
    const { code, ms } = await daemon.stop('SIGTERM');
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    // Point the new daemon at a dead upstream: whatever it serves comes from the file.
    await writeFile(join(dir, 'tonwatch.yml'), configFor('http://127.0.0.1:9'));
    ({ proc: daemon, url: daemonUrl } = await startDaemon());
    const served = await get(`${daemonUrl}/api/v2/getOutMsgQueueSizes`);
    expect(served.status).toBe(200);
    expect(daemon.output()).toMatch(/loaded the persisted snapshot/);
  });
});
