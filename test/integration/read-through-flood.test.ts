import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, ready, startDaemonProcess, startSimProcess, type RunningProcess } from '../helpers/process.js';

/**
 * A read-through flood against the real daemon: 20 clients, each on an address of its own
 * (127.0.0.2–21), each asking 50 random unwatched addresses in a loop. The wallet cycle,
 * bound by the upstream budget, keeps its pace (at most 25 % longer), and a client that
 * asks a few unwatched addresses meanwhile gets its answer, not a 503 or a 504 behind the
 * flood's backlog.
 */

const WATCHED = 3000;
const metric = (text: string, pattern: RegExp): number => Number(text.match(pattern)?.[1] ?? NaN);
const randomRaw = (): string => `0:${randomBytes(32).toString('hex').toUpperCase()}`;

describe('read-through flood, real daemon process', () => {
  let sim: RunningProcess;
  let daemon: RunningProcess;
  let url: string;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-rt-flood-'));
    let simUrl: string;
    ({ proc: sim, url: simUrl } = await startSimProcess(['--block-ms', '0', '--accounts', String(WATCHED), '--seed', '14']));
    const accounts = (await (await fetch(`${simUrl}/_sim/accounts`)).json()) as { raw: string }[];
    await writeFile(join(dir, 'watch.txt'), accounts.map((a) => a.raw).join('\n'));
    // 20 batches of 150 a cycle at 8 requests a second: a cycle of about 2 s, bound by the budget.
    ({ proc: daemon, url } = await startDaemonProcess(
      dir,
      `listen: { host: 127.0.0.1, port: 0 }
upstreams: [ { name: sim, url: "${simUrl}", rps: 8, timeoutMs: 10000 } ]
schedule: { queueSizes: "0 0 * * * *", wallets: "*/6 * * * * *" }
lagCheck: { everySeconds: 0 }
# The chain's polls (up to 8 calls, ahead of the wallet batches) would land in one measured window and not the other.
chain: { heads: false, validators: false }
walletBatchSize: 150
readThrough: { enabled: true, ttlSeconds: 60 }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 3600 }
watchlistFiles: [ ./watch.txt ]
`,
    ));
  }, 60_000);
  afterAll(async () => {
    await daemon?.stop('SIGKILL');
    await sim?.stop('SIGKILL');
  });

  /** Sum and count of the wallet cycles so far (tonwatch_poll_duration_seconds). */
  async function cycles(): Promise<{ sum: number; count: number }> {
    const text = await (await fetch(`${url}/metrics`)).text();
    return {
      sum: metric(text, /^tonwatch_poll_duration_seconds_sum\{query="wallets"\} ([\d.e+-]+)$/m),
      count: metric(text, /^tonwatch_poll_duration_seconds_count\{query="wallets"\} (\d+)$/m),
    };
  }

  /** The mean length of the next `n` wallet cycles, seconds. */
  async function meanOfNext(n: number): Promise<number> {
    const from = await cycles();
    const to = await eventually(async () => {
      const now = await cycles();
      return now.count >= from.count + n ? now : undefined;
    }, 60_000);
    return (to.sum - from.sum) / (to.count - from.count);
  }

  it('keeps the wallet cycle within 25 % of its pace, and answers a client beside the flood', { timeout: 120_000 }, async () => {
    await eventually(async () => ((await cycles()).count >= 1 ? true : undefined), 30_000, 'a first wallet cycle');
    const calm = await meanOfNext(2);

    let flooding = true;
    const statuses = new Map<number, number>();
    const flooders = Array.from({ length: 20 }, async (_, i) => {
      const agent = new Agent({ localAddress: `127.0.0.${i + 2}` });
      while (flooding) {
        const query = Array.from({ length: 50 }, randomRaw).join(',');
        const response = await undiciFetch(`${url}/api/v3/walletStates?address=${query}`, { dispatcher: agent }).catch(() => null);
        if (response !== null) {
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          await response.arrayBuffer();
        }
      }
      await agent.close();
    });
    await new Promise((r) => setTimeout(r, 2_000));
    // A client of its own beside the flood: five unwatched addresses, answered.
    const started = Date.now();
    const mine = Array.from({ length: 5 }, randomRaw);
    const answer = await fetch(`${url}/api/v3/walletStates?address=${mine.join(',')}`);
    const waited = Date.now() - started;
    const body = (await answer.json()) as { address_book?: Record<string, unknown> };
    const flooded = await meanOfNext(2);
    flooding = false;
    await Promise.all(flooders);

    console.log(
      `read-through flood: ${JSON.stringify(Object.fromEntries(statuses))}; wallet cycle ${calm.toFixed(2)} s calm, ${flooded.toFixed(2)} s flooded ` +
        `(${(flooded / calm).toFixed(2)}x); a client beside it: ${answer.status} in ${waited} ms`,
    );
    expect(answer.status).toBe(200);
    expect(Object.keys(body.address_book ?? {})).toHaveLength(5);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(flooded / calm).toBeLessThanOrEqual(1.25);
  });

  it("does not make a client wait behind another's backlog of 10,000 addresses, nor refuse it", { timeout: 60_000 }, async () => {
    await ready(url, 30_000);
    const flooder = new Agent({ localAddress: '127.0.0.2' });
    const backlog = Array.from({ length: 10 }, async () => {
      const query = Array.from({ length: 1000 }, randomRaw).join(',');
      const response = await undiciFetch(`${url}/api/v3/walletStates?address=${query}`, { dispatcher: flooder });
      await response.arrayBuffer();
      return response.status;
    });
    await new Promise((r) => setTimeout(r, 300));
    const other = new Agent({ localAddress: '127.0.0.3' });
    const started = Date.now();
    const answer = await undiciFetch(`${url}/api/v3/walletStates?address=${Array.from({ length: 5 }, randomRaw).join(',')}`, { dispatcher: other });
    const waited = Date.now() - started;
    const statuses = await Promise.all(backlog);
    console.log(`a backlog of 10,000 from one address: ${JSON.stringify(statuses)}; another client beside it: ${answer.status} in ${waited} ms`);
    expect(answer.status).toBe(200);
    expect(waited).toBeLessThan(3_000);
    // The backlog's client got no more than its share: part of it refused at once.
    expect(statuses).toContain(503);
    await Promise.all([flooder.close(), other.close()]);
  });
});
