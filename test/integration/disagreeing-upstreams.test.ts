import { createServer, type Server } from 'node:http';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../src/serve/lifecycle.js';
import { parseAddress } from '../../src/ton/address.js';
import { eventually, ready, startDaemonProcess, startSimProcess, type RunningProcess } from '../helpers/process.js';

/**
 * Two upstreams that disagree, against the real daemon process: the primary is the
 * simulator, failing now and then; the secondary answers what the simulator said five
 * blocks ago (a mirror kept by this test, as a lagging toncenter behind a cache would).
 * Whatever answers, shard seqnos and wallets' last_transaction_lt never go backwards in
 * v2, walletStates or /metrics.
 */

const LAG_STEPS = 5;

interface Answers {
  readonly v2: string;
  readonly wallets: ReadonlyMap<string, unknown>;
}

/** The simulator's answers, recorded at each step; served LAG_STEPS steps late. */
function createLaggingMirror(simUrl: string, accounts: readonly string[]) {
  const history: Answers[] = [];
  const behind = (): Answers | undefined => history[Math.max(0, history.length - 1 - LAG_STEPS)];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://mirror');
    const answers = behind();
    let body: string;
    if (answers === undefined) body = JSON.stringify({ ok: false, error: 'nothing yet', code: 503 });
    else if (url.pathname.startsWith('/api/v2/getOutMsgQueueSize')) body = answers.v2;
    else if (url.pathname === '/api/v3/walletStates') {
      // tonwatch asks in the shortest form (user-friendly): keyed back to the raw form.
      const asked = url.searchParams
        .getAll('address')
        .flatMap((a) => a.split(','))
        .map((a) => {
          const parsed = parseAddress(a);
          return parsed.ok ? parsed.value.raw : a;
        });
      body = JSON.stringify({ wallets: asked.flatMap((a) => answers.wallets.get(a) ?? []), address_book: {}, metadata: {} });
    } else body = JSON.stringify({ ok: false, error: 'Not Found', code: 404 });
    res.writeHead(answers === undefined ? 503 : 200, { 'content-type': 'application/json' });
    res.end(body);
  });
  return {
    server,
    async record(): Promise<void> {
      // A failure injected for the daemon may fall to these requests instead: asked again.
      const ok = async (path: string): Promise<string> =>
        eventually(
          async () => {
            const response = await fetch(`${simUrl}${path}`);
            return response.status === 200 ? response.text() : undefined;
          },
          5_000,
          `the simulator's ${path}`,
        );
      const v2 = await ok('/api/v2/getOutMsgQueueSizes');
      const states = JSON.parse(await ok(`/api/v3/walletStates?address=${accounts.join(',')}`)) as { wallets: { address: string }[] };
      history.push({ v2, wallets: new Map(states.wallets.map((w) => [w.address, w])) });
    },
  };
}

/** The highest value seen per key; a lower one later is a step backwards. */
function createMonotonicCheck() {
  const highest = new Map<string, bigint>();
  const backwards: string[] = [];
  return {
    backwards,
    see(key: string, value: string | number | null | undefined): void {
      if (value === null || value === undefined) return;
      const v = BigInt(value);
      const was = highest.get(key);
      if (was !== undefined && v < was) backwards.push(`${key}: ${was} → ${v}`);
      if (was === undefined || v > was) highest.set(key, v);
    },
  };
}

describe('two upstreams that disagree, real daemon process', () => {
  let sim: RunningProcess;
  let daemon: RunningProcess;
  let simUrl: string;
  let url: string;
  let mirror: ReturnType<typeof createLaggingMirror>;
  let accounts: string[];

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-disagree-'));
    ({ proc: sim, url: simUrl } = await startSimProcess(['--block-ms', '0', '--accounts', '30', '--seed', '9']));
    accounts = ((await (await fetch(`${simUrl}/_sim/accounts`)).json()) as { raw: string; kind: string }[])
      .filter((a) => a.kind !== 'nonexist')
      .map((a) => a.raw);
    mirror = createLaggingMirror(simUrl, accounts);
    const { port: mirrorPort } = await listen(mirror.server, '127.0.0.1', 0);
    for (let i = 0; i <= LAG_STEPS; i += 1) {
      await mirror.record();
      await fetch(`${simUrl}/_sim/step`);
    }
    await mirror.record();
    await writeFile(join(dir, 'watch.txt'), accounts.join('\n'));
    ({ proc: daemon, url } = await startDaemonProcess(
      dir,
      `listen: { host: 127.0.0.1, port: 0 }
upstreams:
  - { name: primary, url: "${simUrl}", rps: 100, timeoutMs: 1000 }
  - { name: behind, url: "http://127.0.0.1:${mirrorPort}", rps: 100, timeoutMs: 1000 }
schedule: { queueSizes: "* * * * * *", wallets: "* * * * * *" }
retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 50 }
lagCheck: { everySeconds: 0 }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 60 }
watchlistFiles: [ ./watch.txt ]
`,
    ));
    await ready(url);
  });

  afterAll(async () => {
    await daemon?.stop('SIGKILL');
    await sim?.stop('SIGKILL');
    mirror?.server.close();
  });

  // Its own timeout: up to 60 rounds of ~0.5 s (below) run past the default 30 s on a loaded machine.
  it('never serves or exports a shard seqno or a last_transaction_lt lower than one it served before, and counts the older answers', async () => {
    const check = createMonotonicCheck();
    const sample = async (): Promise<void> => {
      const v2 = (await (await fetch(`${url}/api/v2/getOutMsgQueueSizes`)).json()) as {
        result: { shards: { id: { workchain: number; shard: string; seqno: number } }[] };
      };
      for (const s of v2.result.shards) check.see(`v2 ${s.id.workchain}:${s.id.shard}`, s.id.seqno);
      const v3 = (await (await fetch(`${url}/api/v3/walletStates?address=${accounts.join(',')}`)).json()) as {
        wallets: { address: string; last_transaction_lt: string | null }[];
      };
      for (const w of v3.wallets) check.see(`v3 ${w.address}`, w.last_transaction_lt);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      for (const m of metrics.matchAll(/^ton_shard_block_seqno\{workchain="(-?\d+)",shard="(\w+)"\} (\d+)$/gm)) check.see(`metric ${m[1]}:${m[2]}`, m[3]);
      for (const m of metrics.matchAll(/^ton_wallet_last_transaction_lt\{address="([^"]+)"[^}]*\} (\d+)$/gm)) check.see(`metric ${m[1]}`, m[2]);
    };

    // 30 to 60 rounds of ~0.5 s: the chain moves a block a round; the primary fails four
    // requests every other round, and each failure is answered by the mirror, five blocks
    // behind. Past 30 rounds, until both polls have met an older answer. Four, not two:
    // on a loaded machine the queue poll (which asks first at a tick) and the mirror's own
    // recording took every failure of a whole run, and the wallet poll met none.
    const olderAnswers = /^tonwatch_upstream_stale_answers_total\{upstream="behind",query="(queue_sizes|wallets)"\} [1-9]\d*$/gm;
    let metrics = '';
    for (let i = 0; i < 60; i += 1) {
      await fetch(`${simUrl}/_sim/step`);
      await mirror.record();
      if (i % 2 === 0) await fetch(`${simUrl}/_sim/inject?kind=http_503&count=4`);
      await sample();
      await new Promise((r) => setTimeout(r, 400));
      metrics = await (await fetch(`${url}/metrics`)).text();
      if (i >= 30 && [...metrics.matchAll(olderAnswers)].length === 2) break;
    }
    await sample();
    expect(check.backwards).toEqual([]);
    // The mirror did answer, older than what was served, and it was not applied.
    expect(metrics).toMatch(/^tonwatch_upstream_stale_answers_total\{upstream="behind",query="queue_sizes"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^tonwatch_upstream_stale_answers_total\{upstream="behind",query="wallets"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^tonwatch_upstream_requests_total\{upstream="primary",query="queue_sizes",code="503"\} [1-9]\d*$/m);
  }, 90_000);
});
