import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startDaemonProcess, startSimProcess, type RunningProcess } from '../helpers/process.js';

/**
 * The real daemon under Debian's libfaketime, its wall clock stepped an hour back and
 * forward while it runs (the monotonic clock left alone, as NTP and a VM restore leave
 * it): polling keeps its rhythm, ages and freshness stay true, and data that stops coming
 * is stale after maxAgeSeconds whatever the wall clock did.
 */

/** Debian's libfaketime; required under CI=true (.ci/run installs the faketime package). */
function libfaketime(): string | null {
  const found =
    readdirSync('/usr/lib')
      .map((arch) => `/usr/lib/${arch}/faketime/libfaketime.so.1`)
      .find((path) => existsSync(path)) ?? null;
  if (found === null && process.env['CI']) throw new Error("libfaketime is required under CI=true (.ci/run installs Debian's faketime package)");
  return found;
}

const metric = (text: string, line: RegExp): number => Number(text.match(line)?.[1] ?? NaN);
const POLLS = /^tonwatch_poll_duration_seconds_count\{query="queue_sizes"\} (\d+)$/m;
const AGE = /^tonwatch_snapshot_age_seconds\{query="queue_sizes"\} ([\d.]+)$/m;

describe('wall clock steps, real process under libfaketime', () => {
  const preload = libfaketime();
  let sim: RunningProcess;
  let daemon: RunningProcess;
  let url: string;
  let offsetFile: string;

  const step = (seconds: number) => writeFile(offsetFile, `${seconds >= 0 ? '+' : ''}${seconds}\n`);
  const scrape = async () => (await fetch(`${url}/metrics`)).text();
  const v2 = async () => {
    const response = await fetch(`${url}/api/v2/getOutMsgQueueSizes`);
    return { status: response.status, body: (await response.json()) as { result?: { '@extra': string } } };
  };
  /** Polls made in the next `ms` of real time. */
  const pollsWithin = async (ms: number) => {
    const before = metric(await scrape(), POLLS);
    await new Promise((r) => setTimeout(r, ms));
    return metric(await scrape(), POLLS) - before;
  };

  beforeAll(async () => {
    if (preload === null) return;
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-clock-'));
    offsetFile = join(dir, 'faketime');
    await step(0);
    let simUrl: string;
    ({ proc: sim, url: simUrl } = await startSimProcess(['--block-ms', '500', '--seed', '3']));
    ({ proc: daemon, url } = await startDaemonProcess(
      dir,
      `listen: { host: 127.0.0.1, port: 0 }
upstreams: [ { name: sim, url: "${simUrl}", rps: 50, timeoutMs: 1000 } ]
schedule: { queueSizes: "* * * * * *" }
retry: { attempts: 1, baseDelayMs: 50, maxDelayMs: 200 }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 4 }
`,
      {
        LD_PRELOAD: preload,
        FAKETIME_TIMESTAMP_FILE: offsetFile,
        FAKETIME_CACHE_DURATION: '0',
        FAKETIME_NO_CACHE: '1',
        FAKETIME_DONT_FAKE_MONOTONIC: '1',
      },
    ));

    await eventually(async () => ((await v2()).status === 200 ? true : undefined), 15_000, 'the first queue poll');
  });

  afterAll(async () => {
    await daemon?.stop('SIGKILL');
    await sim?.stop('SIGKILL');
  });

  it('keeps polling once a second through a step back of an hour and one forward, with true ages and wall-time @extra', async (ctx) => {
    if (preload === null) return ctx.skip("libfaketime not installed (CI installs Debian's faketime package)");
    expect(await pollsWithin(3_000)).toBeGreaterThanOrEqual(2);

    await step(-3600);
    // node-cron's timer waited an hour here; ours keeps the rhythm.
    expect(await pollsWithin(4_000)).toBeGreaterThanOrEqual(3);
    const back = await scrape();
    expect(metric(back, AGE)).toBeLessThan(3);
    expect(back).toMatch(/^tonwatch_up\{query="queue_sizes"\} 1$/m);
    // @extra is wall time: the faked wall clock's, an hour behind the real one.
    const extra = Number((await v2()).body.result?.['@extra'].split(':')[0]);
    expect(Math.abs(extra - (Date.now() / 1000 - 3600))).toBeLessThan(5);

    await step(3600);
    expect(await pollsWithin(4_000)).toBeGreaterThanOrEqual(3);
    const forward = await scrape();
    expect(metric(forward, AGE)).toBeLessThan(3);
    expect((await v2()).status).toBe(200);
  });

  it('serves nothing older than maxAgeSeconds once the upstream is gone, though the wall clock stepped back', async (ctx) => {
    if (preload === null) return ctx.skip("libfaketime not installed (CI installs Debian's faketime package)");
    await step(-3600);
    await pollsWithin(1_500);
    await sim.stop('SIGKILL');
    // The data stops at once; 4 s of maxAgeSeconds later it is stale on the monotonic clock.
    const stale = await eventually(async () => ((await v2()).status === 503 ? true : undefined), 10_000, 'v2 to turn 503');
    expect(stale).toBe(true);
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    expect(metric(await scrape(), AGE)).toBeGreaterThan(4);
  });
});
