import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDaemon } from '../../src/app/daemon.js';
import { createLagState, lagsFrom } from '../../src/features/lag-check/lag.js';
import { createUpstreamClient } from '../../src/upstream/client.js';
import { configFrom } from '../helpers/config.js';
import { createLogSink } from '../helpers/log.js';
import { eventually } from '../helpers/process.js';
import { stoppedAfterEach } from '../helpers/sim.js';

/** Lag detection: tips to lags, who is passed over, and two simulated upstreams, one held back. */

describe('lag state', () => {
  it('measures each tip against the most advanced one, and each indexer against its own v2 tip', () => {
    const lags = lagsFrom([
      { upstream: 'a', seqno: 1000, indexerSeqno: 990 },
      { upstream: 'b', seqno: 980, indexerSeqno: 981 },
      { upstream: 'c', seqno: null, indexerSeqno: 900 },
    ]);
    expect(Object.fromEntries(lags)).toEqual({
      a: { lagBlocks: 0, indexerLagBlocks: 10 },
      b: { lagBlocks: 20, indexerLagBlocks: 0 },
      c: { lagBlocks: undefined, indexerLagBlocks: undefined },
    });
  });

  it('passes over an upstream past maxLagBlocks for both polls, and one whose indexer lags for wallets only; logs each change once', () => {
    const log = createLogSink();
    const state = createLagState(log.logger);
    expect(state.lagging('b', 'queue_sizes')).toBeNull();
    state.record(
      [
        { upstream: 'a', seqno: 1000, indexerSeqno: 985 },
        { upstream: 'b', seqno: 980, indexerSeqno: 980 },
      ],
      10,
    );
    expect(state.lagging('a', 'queue_sizes')).toBeNull();
    expect(state.lagging('a', 'wallets')).toBe('indexer_lagging');
    expect(state.lagging('b', 'queue_sizes')).toBe('lagging');
    expect(state.lagging('b', 'wallets')).toBe('lagging');
    state.record(
      [
        { upstream: 'a', seqno: 1001, indexerSeqno: 1001 },
        { upstream: 'b', seqno: 995, indexerSeqno: 995 },
      ],
      10,
    );
    expect(state.lagging('b', 'queue_sizes')).toBeNull();
    expect(state.lagging('a', 'wallets')).toBeNull();
    expect(log.lines().map((l) => l['msg'])).toEqual(['upstream is behind the chain tip; skipping it', 'upstream caught up; using it again']);
  });
});

describe('lag check against simulated upstreams', () => {
  const running = stoppedAfterEach();

  it("asks each upstream's v2 and v3 tips inside its budget, and reads the simulator's lag knobs", async () => {
    const fast = await running.sim({ seed: 3 });
    const slow = await running.sim({ seed: 3, lagBlocks: 25, indexerLagBlocks: 7 });
    const codes: string[] = [];
    const client = createUpstreamClient({
      upstreams: [
        { kind: 'http', name: 'fast', url: fast.url, rps: 100, timeoutMs: 2000 },
        { kind: 'http', name: 'slow', url: slow.url, rps: 100, timeoutMs: 2000 },
      ],
      retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
      logger: createLogSink().logger,
      observer: { request: (u, q, code) => codes.push(`${u} ${q} ${code}`), skipped: () => undefined },
      now: () => Date.now(),
      userAgent: 'test',
    });
    const tips = await client.fetchTips();
    const chainTip = fast.sim.chain.queues()[0]?.seqno ?? 0;
    expect(tips).toEqual([
      { upstream: 'fast', seqno: chainTip, indexerSeqno: chainTip },
      { upstream: 'slow', seqno: chainTip - 25, indexerSeqno: chainTip - 32 },
    ]);
    expect(codes.sort()).toEqual(['fast lag_check 200', 'fast lag_check 200', 'slow lag_check 200', 'slow lag_check 200']);
  });

  it('exports the lag, moves the polls away from a lagging upstream, and comes back when it catches up', async () => {
    const first = await running.sim({ seed: 3, lagBlocks: 50, indexerLagBlocks: 4 });
    const second = await running.sim({ seed: 3 });
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-lag-'));
    const watched = second.sim.wallets.accounts()[0]?.raw ?? '';
    const config = await configFrom(`
listen: { host: 127.0.0.1, port: 0 }
upstreams:
  - { name: first, url: "${first.url}", rps: 100, timeoutMs: 2000 }
  - { name: second, url: "${second.url}", rps: 100, timeoutMs: 2000 }
schedule: { queueSizes: "* * * * * *", wallets: "* * * * * *" }
lagCheck: { everySeconds: 1, maxLagBlocks: 10 }
retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 50 }
snapshot: { file: "${join(dir, 'snapshot.json')}", maxAgeSeconds: 60 }
watchlist: [ { address: "${watched}" } ]
`);
    const log = createLogSink();
    const daemon = running.track(createDaemon({ config, logger: log.logger, now: () => Date.now(), version: 't', nodeVersion: 'v20' }));
    const { port } = await daemon.start();
    const url = `http://127.0.0.1:${port}`;
    const metrics = async () => (await fetch(`${url}/metrics`)).text();
    const extra = async () => ((await (await fetch(`${url}/api/v2/getOutMsgQueueSizes`)).json()) as { result: { '@extra': string } }).result['@extra'];

    await eventually(
      async () => (/tonwatch_upstream_lag_blocks\{upstream="first"\} 50$/m.test(await metrics()) ? true : undefined),
      10_000,
      'the lag of first',
    );
    const text = await metrics();
    expect(text).toMatch(/^tonwatch_upstream_lag_blocks\{upstream="second"\} 0$/m);
    expect(text).toMatch(/^tonwatch_upstream_indexer_lag_blocks\{upstream="first"\} 4$/m);
    expect(text).toMatch(/^tonwatch_upstream_max_lag_blocks 10$/m);
    // The served data names where it really came from: the second upstream, the first being behind.
    await eventually(async () => ((await extra()).endsWith(':second:snapshot') ? true : undefined), 10_000, 'queue sizes from second');
    await eventually(
      async () => (/tonwatch_upstream_skipped_total\{upstream="first",query="queue_sizes",reason="lagging"\} [1-9]/.test(await metrics()) ? true : undefined),
      10_000,
      'skips counted',
    );
    // The wallet poll is skipped past first at its next tick after the lag check (its run at start may precede the check).
    await eventually(
      async () => (/tonwatch_upstream_skipped_total\{upstream="first",query="wallets",reason="lagging"\} [1-9]/.test(await metrics()) ? true : undefined),
      10_000,
      'wallet skips counted',
    );

    // Caught up: the first upstream is used again.
    await fetch(`${first.url}/_sim/lag?blocks=0&indexer=0`);
    await eventually(async () => ((await extra()).endsWith(':first:snapshot') ? true : undefined), 10_000, 'queue sizes from first again');
    expect(await metrics()).toMatch(/^tonwatch_upstream_lag_blocks\{upstream="first"\} 0$/m);
    expect(log.text()).toMatch(/upstream caught up; using it again/);
  });
});

describe('every upstream within maxLagBlocks failing', () => {
  const running = stoppedAfterEach();

  it('polls the lagging one rather than nothing, applying its answers once they are newer than the data served (never backwards)', async () => {
    const first = await running.sim({ seed: 3 });
    const second = await running.sim({ seed: 3, lagBlocks: 20 });
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-lag-fallback-'));
    const config = await configFrom(`
listen: { host: 127.0.0.1, port: 0 }
upstreams:
  - { name: first, url: "${first.url}", rps: 100, timeoutMs: 1000 }
  - { name: second, url: "${second.url}", rps: 100, timeoutMs: 1000 }
schedule: { queueSizes: "* * * * * *" }
# Checked once at start, then hourly: second stays flagged as lagging after first dies.
lagCheck: { everySeconds: 3600, maxLagBlocks: 10 }
retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 50 }
snapshot: { file: "${join(dir, 'snapshot.json')}", maxAgeSeconds: 60 }
`);
    const daemon = running.track(createDaemon({ config, logger: createLogSink().logger, now: () => Date.now(), version: 't', nodeVersion: 'v20' }));
    const { port } = await daemon.start();
    const url = `http://127.0.0.1:${port}`;
    const metrics = async () => (await fetch(`${url}/metrics`)).text();
    const served = async () =>
      ((await (await fetch(`${url}/api/v2/getOutMsgQueueSizes`)).json()) as { result: { '@extra': string; shards: { id: { seqno: number } }[] } }).result;

    await eventually(async () => (/tonwatch_upstream_lag_blocks\{upstream="second"\} 20$/m.test(await metrics()) ? true : undefined), 10_000, 'second flagged');
    await eventually(async () => ((await served())['@extra'].endsWith(':first:snapshot') ? true : undefined), 10_000, 'queue sizes from first');
    const heldSeqno = (await served()).shards[0]?.id.seqno ?? 0;

    await first.stop();
    // second answers, 20 blocks behind what is served: counted, not applied.
    await eventually(
      async () => (/tonwatch_upstream_stale_answers_total\{upstream="second",query="queue_sizes"\} [1-9]/.test(await metrics()) ? true : undefined),
      10_000,
      'older answers from second counted',
    );
    expect((await served()).shards[0]?.id.seqno).toBe(heldSeqno);
    expect((await served())['@extra']).toMatch(/:first:snapshot$/);
    // second's chain moves on past what was served: its answers are applied.
    await fetch(`${second.url}/_sim/step?n=25`);
    const fromSecond = await eventually(
      async () => {
        const result = await served();
        return result['@extra'].endsWith(':second:snapshot') ? result : undefined;
      },
      10_000,
      'queue sizes from second',
    );
    expect(fromSecond.shards[0]?.id.seqno).toBe(heldSeqno + 5);
    expect(await metrics()).toMatch(/tonwatch_upstream_skipped_total\{upstream="second",query="queue_sizes",reason="lagging"\} [1-9]/);
  });
});
