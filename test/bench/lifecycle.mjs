// Start, stop and memory of the real tonwatch process, as the product's targets name them.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, exited, freePort, getWhenUp, NODE_FLAGS, persistedDataDir, rssOf, simulatorSetup, spawnTonwatch, untilReady } from './support.mjs';

const query = (addresses) => addresses.map(encodeURIComponent).join(',');

/** Polls `url` every 2 ms until it answers 200 (60 s at most); resolves with the milliseconds since `since`. */
async function msUntil200(url, since) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await getWhenUp(url, {}, 60_000);
    if (answer.status === 200) return Number(process.hrtime.bigint() - since) / 1e6;
    if (Date.now() > deadline) throw new Error(`${url.slice(0, 100)}: still ${answer.status} after 60 s: ${answer.body.toString().slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/**
 * Milliseconds from spawning `tonwatch` on a persisted snapshot of `wallets` wallets
 * (upstream dead) to its first 200 on v2, on walletStates for one watched address, and on
 * /readyz. A restart (`restart`, the default: tonwatch ran once on this config before, as
 * in production, so the files and the page cache are what a previous run left), or a
 * first start.
 */
export async function startTimes(wallets, watchlist = 'realistic', restart = true) {
  const port = await freePort();
  const data = await persistedDataDir(wallets, port, { watchlist, restart });
  const base = `http://127.0.0.1:${port}`;
  const started = process.hrtime.bigint();
  const daemon = await spawnTonwatch(['--config', data.config]);
  try {
    const [v2, v3, ready] = await Promise.all([
      msUntil200(`${base}/api/v2/getOutMsgQueueSizes`, started),
      msUntil200(`${base}/api/v3/walletStates?address=${encodeURIComponent(data.addresses(1)[0])}`, started),
      msUntil200(`${base}/readyz`, started),
    ]);
    // The bytes answered, for the baseline (bareStartMs) to send the same.
    const v2Body = (await getWhenUp(`${base}/api/v2/getOutMsgQueueSizes`)).body;
    return { v2, v3, ready, v2Body };
  } finally {
    daemon.kill('SIGKILL');
    await exited(daemon);
  }
}

/** Milliseconds from SIGTERM to exit, for a daemon that has served `wallets` wallets from its persisted snapshot and changed nothing since. */
export async function stopUnchanged(wallets) {
  const port = await freePort();
  const data = await persistedDataDir(wallets, port);
  const daemon = await spawnTonwatch(['--config', data.config]);
  // Served: its whole snapshot loaded (walletStates answers before that), and scraped.
  await untilReady(`http://127.0.0.1:${port}`);
  await getWhenUp(`http://127.0.0.1:${port}/metrics`, { 'accept-encoding': 'gzip' });
  return stopTime(daemon);
}

/** SIGTERM to exit, in ms, and the exit code. */
async function stopTime(daemon) {
  const stopping = process.hrtime.bigint();
  daemon.kill('SIGTERM');
  const code = await exited(daemon);
  return { ms: Number(process.hrtime.bigint() - stopping) / 1e6, code };
}

/**
 * Milliseconds from SIGTERM to exit right after a wallet cycle changed every one of
 * `wallets` wallets: the daemon polls the simulator, and is stopped the moment its cycle ends.
 */
export async function stopAfterCycle(wallets) {
  const { sim, config } = await simulatorSetup(wallets, ['--max-url-bytes', '1000000'], {
    rps: 200,
    schedule: '{ queueSizes: "*/5 * * * * *", wallets: "0 0 * * * *" }',
  });
  try {
    return await stopTime(await spawnTonwatch(['--config', config], /"wallet cycle done"/));
  } finally {
    sim.kill('SIGTERM');
    await exited(sim);
  }
}

/**
 * RSS of the daemon as users run it: polling the simulator (`wallets` accounts, every one
 * watched; queue sizes every 5 s, wallet states every 10 s, so several cycles fall in the
 * window), scraped with gzip every 2 s as Prometheus does (its default is every 15 s),
 * with an identity scrape and a 1024-address walletStates query every 10 s. Sampled every
 * second for `seconds` once the first wallet cycle is done; resolves with the samples
 * (bytes). The peak is what a memory limit has to allow. `identity: false` leaves the
 * identity scrapes out (at 1,000,000 wallets one is an ~800 MB body); `rps` is the
 * daemon's budget (the simulator answers at any rate).
 */
export async function memoryWhilePolling(wallets, seconds = 30, { identity = true, rps = 200 } = {}) {
  const { sim, port, config, addresses } = await simulatorSetup(wallets, ['--max-url-bytes', '1000000'], {
    rps,
    schedule: '{ queueSizes: "*/5 * * * * *", wallets: "*/10 * * * * *" }',
  });
  try {
    const daemon = await spawnTonwatch(['--config', config], /"wallet cycle done"/);
    // Its debug lines are not read from here on; they must not fill the pipe.
    daemon.stdout.resume();
    try {
      const base = `http://127.0.0.1:${port}`;
      const samples = [];
      for (let second = 1; second <= seconds; second += 1) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        if (second % 2 === 0) await getWhenUp(`${base}/metrics`, { 'accept-encoding': 'gzip' });
        if (second % 10 === 0) {
          if (identity) await getWhenUp(`${base}/metrics`);
          await getWhenUp(`${base}/api/v3/walletStates?address=${query(addresses.slice(0, 1024))}`);
        }
        samples.push(rssOf(daemon.pid));
      }
      return samples;
    } finally {
      daemon.kill('SIGKILL');
      await exited(daemon);
    }
  } finally {
    sim.kill('SIGTERM');
    await exited(sim);
  }
}

/**
 * RSS of a daemon serving `wallets` wallets from its persisted snapshot with the upstream
 * down, after scrapes in both encodings and a walletStates query: no upstream answer parsed,
 * nothing re-rendered (for information; memoryWhilePolling is the daemon as users run it).
 */
export async function memoryAfterScrapes(wallets) {
  const port = await freePort();
  const data = await persistedDataDir(wallets, port);
  const daemon = await spawnTonwatch(['--config', data.config]);
  try {
    const base = `http://127.0.0.1:${port}`;
    await untilReady(base);
    // Its start-up work (a full collection once the wallets file is in) out of the way.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    for (let i = 0; i < 3; i += 1) await getWhenUp(`${base}/metrics`, { 'accept-encoding': 'gzip' });
    await getWhenUp(`${base}/metrics`);
    await getWhenUp(`${base}/api/v3/walletStates?address=${query(data.addresses(1024))}`);
    return rssOf(daemon.pid);
  } finally {
    daemon.kill('SIGKILL');
    await exited(daemon);
  }
}

/**
 * The start's baseline, measured the same way in the same run: milliseconds from spawning a
 * bare node:http server (bare-server.mjs, on tonwatch's Node flags) that reads the v2 body
 * tonwatch answered from a file, to its first 200. What any Node server answering from a
 * file needs on this machine: Node's start, node:http, one file read, listening.
 */
export async function bareStartMs(v2Body) {
  const dir = benchDir('tonwatch-bare-start-');
  const path = '/api/v2/getOutMsgQueueSizes';
  writeFileSync(join(dir, 'v2.json'), v2Body);
  writeFileSync(
    join(dir, 'answers.json'),
    JSON.stringify([{ path, headers: { 'content-type': 'application/json; charset=utf-8' }, bodyFile: join(dir, 'v2.json') }]),
  );
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...NODE_FLAGS, new URL('./bare-server.mjs', import.meta.url).pathname, String(port), join(dir, 'answers.json')], {
    stdio: 'ignore',
  });
  try {
    return await msUntil200(`http://127.0.0.1:${port}${path}`, started);
  } finally {
    child.kill('SIGKILL');
    await exited(child);
  }
}

/** Milliseconds for `tonwatch --version`: Node's own start and loading the code, the floor under any start time. */
export async function moduleLoadingMs() {
  const started = process.hrtime.bigint();
  const child = await spawnTonwatch(['--version']);
  await exited(child);
  return Number(process.hrtime.bigint() - started) / 1e6;
}
