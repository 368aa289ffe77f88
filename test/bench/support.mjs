// What the benchmarks share: the real tonwatch process, a persisted snapshot to start it
// on, the load generator (wrk, in its own process), and readings from /proc. Loopback only.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { request } from 'undici';
import { matchWalletAnswer } from '../../dist/accounts/wallet-mapping.js';
import { createInterning } from '../../dist/domain/interning.js';
import { QUEUE_FILE } from '../../dist/features/queue-sizes/file-format.js';
import { WALLETS_FILE } from '../../dist/features/wallets/file.js';
import { createPersistedFile, partFile } from '../../dist/snapshot/persisted-file.js';
import { decodeWalletStates } from '../../dist/upstream/http/wallet-states.js';
import { queueSnapshot, rawAddress, rawWatchlist, realisticWatchlist, walletStatesBody } from './fixtures.mjs';

export const MAIN = new URL('../../dist/main.js', import.meta.url).pathname;
/**
 * The Node flags of the bin's shebang (`#!/usr/bin/env -S node FLAGS`), as `npm start`, the
 * Docker image and the bin itself run it: read from the built file, so the benchmarks
 * measure what ships.
 */
export const NODE_FLAGS = readFileSync(MAIN, 'utf8')
  .split('\n', 1)[0]
  .replace(/^#!\/usr\/bin\/env -S node\s*/, '')
  .split(/\s+/)
  .filter(Boolean);

/** Flags for the node running tonwatch beyond the shebang's, for experiments (`BENCH_NODE_FLAGS`): `--cpu-prof`, `--heap-growing-percent=50`. */
export const EXTRA_NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);

export const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/**
 * A free port below the kernel's ephemeral range (32768 and up on Linux), for a process that
 * takes seconds to listen: a port from freePort() may be taken meanwhile by an outgoing
 * connection of any process on the machine (a replica at a million wallets lost its port so).
 */
export async function listenPort() {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise((resolve) => {
      const s = createServer()
        .once('error', () => resolve(false))
        .listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(numbers) {
  const sorted = [...numbers].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

/** CPU seconds a process has used so far (user + system), from /proc. */
export function cpuSecondsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Spawns `tonwatch ARGS` (as the package runs it) and resolves once its stdout matches `ready`. */
export function spawnTonwatch(args, ready) {
  const child = spawn(process.execPath, [...NODE_FLAGS, ...EXTRA_NODE_FLAGS, MAIN, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  if (!ready) return Promise.resolve(child);
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (c) => {
      text += c;
      if (ready.test(text)) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve(child);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`tonwatch ${args[0]} exited with ${code}`)));
  });
}

/** Resolves with the exit code once the child exits. */
export const exited = (child) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode ?? child.signalCode)
    : new Promise((resolve) => child.once('exit', resolve));

/** Folders made by this run, removed when it exits: a 100,000-wallet folder is about 50 MB. */
const madeDirs = [];
// BENCH_KEEP=1 keeps them, to read the daemons' logs after a run.
process.once('exit', () => process.env.BENCH_KEEP || madeDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
export function benchDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/**
 * Runs tonwatch on `config` once, as the run before a restart: until it is ready, then
 * SIGTERM. What a restart finds (files, the page cache) is then what a previous run left.
 */
export async function previousRun(config, port) {
  const daemon = await spawnTonwatch(['--config', config]);
  await untilReady(`http://127.0.0.1:${port}`);
  daemon.kill('SIGTERM');
  await exited(daemon);
}

/**
 * A folder with everything `tonwatch --config <dir>/tonwatch.yml` needs to start on a
 * persisted snapshot of `wallets` watched wallets: the two snapshot files (fetched now,
 * fresh for an hour), the watchlist file, and a config whose upstream is dead, so nothing
 * but the persisted snapshot is served while the real scheduler keeps ticking. Its log
 * level is `logLevel` (debug to read the daemon's start-up steps from its output). The
 * watchlist is `realistic` (as users write it: see realisticWatchlist) or `raw` (one raw
 * address a line, for information). With `restart` (the default) tonwatch has run on it
 * once already (previousRun), so that the next start is a restart, as in production.
 */
export async function persistedDataDir(wallets, port, { logLevel = 'warn', watchlist = 'realistic', restart = true } = {}) {
  const dir = benchDir('tonwatch-bench-');
  const now = Date.now();
  const records = new Map();
  // Held as a polling daemon holds them (states packed, entries derived), so the file is the one it writes.
  const interning = createInterning();
  for (let from = 0; from < wallets; from += 1000) {
    const asked = Array.from({ length: Math.min(1000, wallets - from) }, (_, i) => rawAddress(from + i));
    const decoded = decodeWalletStates(JSON.parse(walletStatesBody(from, from + asked.length)));
    if (!decoded.success) throw decoded.error;
    matchWalletAnswer(asked, decoded.data, { fetchedAt: now, upstream: 'bench', interning }, undefined, records);
  }
  // The two parts' files as the queue sizes and wallets features write them.
  const file = join(dir, 'snapshot.json');
  const options = { logger: pino({ level: 'silent' }), now: Date.now };
  await createPersistedFile({ ...options, file, codec: QUEUE_FILE }).save({ ...queueSnapshot(), fetchedAt: now });
  await createPersistedFile({ ...options, file: partFile(file, 'wallets'), codec: WALLETS_FILE }).save({ wallets: records, fetchedAt: now });
  const raws = Array.from({ length: wallets }, (_, i) => rawAddress(i));
  const lists = watchlist === 'raw' ? rawWatchlist(raws) : realisticWatchlist(raws);
  writeFileSync(join(dir, 'watch.txt'), lists.file);
  writeFileSync(
    join(dir, 'tonwatch.yml'),
    [
      `listen: { host: 127.0.0.1, port: ${port} }`,
      'upstreams: [ { name: dead, url: "http://127.0.0.1:9", timeoutMs: 500 } ]',
      'retry: { attempts: 1 }',
      'watchlistFiles: [watch.txt]',
      'snapshot: { file: snapshot.json, maxAgeSeconds: 3600 }',
      `log: { level: ${logLevel} }`,
      ...lists.yaml,
      '',
    ].join('\n'),
  );
  if (restart) await previousRun(join(dir, 'tonwatch.yml'), port);
  return { dir, config: join(dir, 'tonwatch.yml'), addresses: (n) => Array.from({ length: n }, (_, i) => rawAddress(i)) };
}

/**
 * The simulator process with `wallets` accounts (seed 5, plus `simArgs`), and a config
 * pointing a daemon at it with every account watched (a `realistic` watchlist, as users
 * write it, or `raw`): `rps` for its budget, `schedule`
 * as the config's schedule line, debug logs (the benchmarks read the cycle ends from them).
 * Resolves with both, and the accounts' raw addresses.
 */
export async function simulatorSetup(wallets, simArgs, { rps, schedule, watchlist = 'realistic', extraConfig = [] }) {
  const dir = benchDir('tonwatch-bench-sim-');
  const simPort = await freePort();
  const sim = await spawnTonwatch(['simulate', '--port', String(simPort), '--accounts', String(wallets), '--seed', '5', ...simArgs], /listening/);
  const accounts = await (await fetch(`http://127.0.0.1:${simPort}/_sim/accounts`)).json();
  const raws = accounts.map((a) => a.raw);
  const lists = watchlist === 'raw' ? rawWatchlist(raws) : realisticWatchlist(raws);
  writeFileSync(join(dir, 'watch.txt'), lists.file);
  const port = await freePort();
  const config = join(dir, 'tonwatch.yml');
  writeFileSync(
    config,
    [
      `listen: { host: 127.0.0.1, port: ${port} }`,
      `upstreams: [ { name: sim, url: "http://127.0.0.1:${simPort}", rps: ${rps}, timeoutMs: 10000 } ]`,
      `schedule: ${schedule}`,
      'walletBatchSize: 1000',
      'watchlistFiles: [watch.txt]',
      'snapshot: { file: snapshot.json, maxAgeSeconds: 3600 }',
      'log: { level: debug }',
      ...extraConfig,
      ...lists.yaml,
      '',
    ].join('\n'),
  );
  return { sim, port, config, addresses: raws };
}

/**
 * GET, retrying while the server is not up; resolves with status, headers and the bytes as
 * sent (undici's request neither adds Accept-Encoding nor decodes the body, unlike fetch).
 */
export async function getWhenUp(url, headers = {}, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await request(url, { headers });
      return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 2));
    }
  }
}

/**
 * Resolves once tonwatch at `base` says every part of its snapshot is loaded (/readyz 200):
 * walletStates answers from the wallets file before all of it is read, and /metrics
 * without the wallets not read yet, so a first 200 of either is not that.
 */
export async function untilReady(base) {
  while ((await getWhenUp(`${base}/readyz`, {}, 60_000)).status !== 200) await new Promise((r) => setTimeout(r, 20));
}

let wrkChecked = false;
function requireWrk() {
  if (wrkChecked) return;
  const probe = spawn('wrk', ['--version']);
  probe.on('error', () => {
    console.error('wrk is needed for the HTTP benchmarks: apt-get install wrk (Debian package)');
    process.exit(1);
  });
  wrkChecked = true;
}

const unit = { us: 1e-3, ms: 1, s: 1000 };

/**
 * Loads `url` with wrk (one thread, `connections` connections, `seconds` seconds) while
 * reading the CPU time the server (`serverPid`) and wrk itself use, so a run bound by the
 * generator shows as one: its CPU near 100 % of a core while the server's is not.
 */
export async function wrk(url, { serverPid, connections = 10, seconds = 5, headers = {} }) {
  requireWrk();
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), url];
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const serverFrom = cpuSecondsOf(serverPid);
  // wrk's own CPU is read just before it exits: sample it every 100 ms.
  let wrkCpu = 0;
  const sampler = setInterval(() => {
    try {
      wrkCpu = cpuSecondsOf(child.pid);
    } catch {
      // exited
    }
  }, 100);
  const code = await exited(child);
  clearInterval(sampler);
  const serverCpu = cpuSecondsOf(serverPid) - serverFrom;
  if (code !== 0) throw new Error(`wrk exited with ${code}:\n${out}`);
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (bad) throw new Error(`${url.slice(0, 80)}: ${bad[1]} answers were not 2xx`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)\b/.exec(out);
  return { rps, p99: p99 ? Number(p99[1]) * unit[p99[2]] : NaN, serverCpuShare: serverCpu / seconds, wrkCpuShare: wrkCpu / seconds };
}
