import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startDaemonProcess, startSimProcess, type RunningProcess } from '../helpers/process.js';

/**
 * What a disk does to the real daemon process: its snapshot folder on a small tmpfs turned
 * read-only, then full, then fine again; and kill -9 while it writes. Serving goes on, the
 * log says each episode once, the metrics count every failure, nothing is lost, and no temp
 * file survives a restart.
 */

/** Mounting needs root (CI runs as root); elsewhere the tests say why they skip. */
function canMount(): boolean {
  const root = process.getuid?.() === 0;
  if (!root && process.env['CI']) throw new Error('the persistence tests mount a tmpfs and need root under CI=true');
  return root;
}

const run = (command: string, ...args: string[]): void => {
  const done = spawnSync(command, args, { encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${done.stderr}`);
};
const metric = (text: string, pattern: RegExp): number => Number(text.match(pattern)?.[1] ?? NaN);
const FAILURES = (reason: string) => new RegExp(`^tonwatch_snapshot_persist_failures_total\\{reason="${reason}"\\} (\\d+)$`, 'm');
const PERSISTED = /^tonwatch_snapshot_persisted_timestamp_seconds ([\d.e+]+)$/m;

describe('snapshot folder faults, real process on a tmpfs', () => {
  const root = canMount();
  let sim: RunningProcess;
  let simUrl: string;
  let mountPoint: string;
  let daemon: RunningProcess | undefined;

  beforeAll(async () => {
    if (!root) return;
    ({ proc: sim, url: simUrl } = await startSimProcess(['--block-ms', '200', '--accounts', '300', '--seed', '8']));
    mountPoint = await mkdtemp(join(tmpdir(), 'tonwatch-tmpfs-'));
    run('mount', '-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint);
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
  });
  afterAll(async () => {
    await sim?.stop('SIGKILL');
    if (root) spawnSync('umount', [mountPoint]);
  });

  const startDaemon = async (dir: string, watchlist: number) => {
    const accounts = ((await (await fetch(`${simUrl}/_sim/accounts`)).json()) as { raw: string }[]).slice(0, watchlist);
    await writeFile(join(dir, 'watch.txt'), accounts.map((a) => a.raw).join('\n'));
    return startDaemonProcess(
      dir,
      `listen: { host: 127.0.0.1, port: 0 }
upstreams: [ { name: sim, url: "${simUrl}", rps: 100, timeoutMs: 2000 } ]
schedule: { queueSizes: "* * * * * *", wallets: "* * * * * *" }
snapshot: { file: "${join(mountPoint, 'data', 'snapshot.json')}", maxAgeSeconds: 60 }
watchlistFiles: [ ./watch.txt ]
`,
    );
  };

  it('logs a read-only and a full folder once per episode, counts every failed write by reason, keeps serving, and recovers', async (ctx) => {
    if (!root) return ctx.skip('mounting a tmpfs needs root');
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-faults-'));
    const started = await startDaemon(dir, 300);
    daemon = started.proc;
    const scrape = async () => (await fetch(`${started.url}/metrics`)).text();
    const notPersisting = () => (daemon?.output().match(/could not persist the snapshot/g) ?? []).length;
    const persistedAgain = () => (daemon?.output().match(/snapshot persisted again/g) ?? []).length;
    await eventually(async () => (Number.isFinite(metric(await scrape(), PERSISTED)) ? true : undefined), 15_000, 'a first write');

    // The kernel refuses while a file is open for writing on it (a write in progress): asked again.
    await eventually(async () => (spawnSync('mount', ['-o', 'remount,ro', mountPoint]).status === 0 ? true : undefined), 10_000, 'a read-only remount');
    await eventually(async () => (metric(await scrape(), FAILURES('read_only')) >= 8 ? true : undefined), 15_000, 'eight failed writes');
    const lastWrite = metric(await scrape(), PERSISTED);
    // Two files, one episode each: at most two lines for eight and more failures.
    expect(notPersisting()).toBeGreaterThanOrEqual(1);
    expect(notPersisting()).toBeLessThanOrEqual(2);
    expect((await fetch(`${started.url}/api/v2/getOutMsgQueueSizes`)).status).toBe(200);
    expect((await fetch(`${started.url}/readyz`)).status).toBe(200);

    run('mount', '-o', 'remount,rw', mountPoint);
    await eventually(async () => (metric(await scrape(), PERSISTED) > lastWrite ? true : undefined), 10_000, 'writes again');
    await eventually(async () => (persistedAgain() >= 1 ? true : undefined), 10_000, 'the end of the episode logged');

    // Full: a filler takes every free byte.
    const filler = join(mountPoint, 'filler');
    spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { encoding: 'utf8' });
    const linesBefore = notPersisting();
    await eventually(async () => (metric(await scrape(), FAILURES('disk_full')) >= 5 ? true : undefined), 15_000, 'five writes refused for space');
    expect(notPersisting() - linesBefore).toBeLessThanOrEqual(2);
    expect((await fetch(`${started.url}/api/v2/getOutMsgQueueSizes`)).status).toBe(200);
    await rm(filler);
    const full = metric(await scrape(), PERSISTED);
    await eventually(async () => (metric(await scrape(), PERSISTED) > full ? true : undefined), 10_000, 'writes again after space is freed');
    expect(metric(await scrape(), FAILURES('other'))).toBe(0);
  });

  it('restarts whole after kill -9 at any moment of its writes, and removes the temp files they left', { timeout: 120_000 }, async (ctx) => {
    if (!root) return ctx.skip('mounting a tmpfs needs root');
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-kill-'));
    const data = join(mountPoint, 'data');
    await mkdir(data, { recursive: true });
    const temps = async () => (await readdir(data)).filter((name) => name.endsWith('.tmp'));
    let midWrite = 0;
    let kills = 0;
    let removedAtStart = 0;
    // Until at least three kills landed while a temp file was open, at most 30 kills.
    while (kills < 30 && (midWrite < 3 || kills < 8)) {
      const started = await startDaemon(dir, 300);
      daemon = started.proc;
      // Whole from the start: the persisted queue sizes answer at once, the wallets once read.
      if (kills > 0) {
        await eventually(async () => ((await fetch(`${started.url}/api/v2/getOutMsgQueueSizes`)).status === 200 ? true : undefined), 5_000, 'v2 at restart');
        await eventually(async () => ((await fetch(`${started.url}/readyz`)).status === 200 ? true : undefined), 10_000, 'ready at restart');
        expect(daemon.output()).not.toMatch(/broken or foreign/);
      }
      // Kill while it writes: watch for a temp file, then kill at once.
      const deadline = Date.now() + 3_000;
      let seen = false;
      while (Date.now() < deadline && !seen) {
        seen = (await temps()).length > 0;
        if (!seen) await new Promise((r) => setTimeout(r, 2));
      }
      if (/removed temp files of writes cut short/.test(daemon.output())) removedAtStart += 1;
      await daemon.stop('SIGKILL');
      daemon = undefined;
      kills += 1;
      if (seen && (await temps()).length > 0) midWrite += 1;
    }
    expect(midWrite).toBeGreaterThanOrEqual(3);
    expect(removedAtStart).toBeGreaterThanOrEqual(1);
    const last = await startDaemon(dir, 300);
    daemon = last.proc;
    await daemon.waitFor(/removed temp files of writes cut short|loaded the persisted snapshot/, 10_000);
    await eventually(async () => ((await fetch(`${last.url}/readyz`)).status === 200 ? true : undefined), 10_000, 'ready');
    await daemon.stop('SIGTERM');
    daemon = undefined;
    expect(await temps()).toEqual([]);
  });
});
