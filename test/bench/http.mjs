// The served endpoints as users run them: the real `tonwatch` process (its CLI, config
// file, scheduler and routes) started on a persisted snapshot of 10,000 wallets, against a
// bare node:http process answering the very same bytes (status, headers but Date, body);
// the load from wrk in a third process. Each side is warmed up for a second, then run
// `rounds` times, alternating, and its best run kept: neighbours on a shared machine only
// ever take CPU away.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, exited, freePort, getWhenUp, median, persistedDataDir, spawnTonwatch, untilReady, wrk } from './support.mjs';

const query = (addresses) => addresses.map((a) => `address=${encodeURIComponent(a)}`).join('&');

/** Headers node:http writes itself on both sides, and Content-Length, which the bare server works out: not copied. */
const WRITTEN_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
/**
 * The headers the bare server answers with: every one tonwatch sent (Content-Type,
 * Last-Modified, Age, Cache-Control, Vary, Content-Encoding, …), as it sent them, so both
 * sides send the same bytes but the Date. The contract asks for them; node:http spends
 * about a microsecond a request on the three snapshot headers alone.
 */
export const sameHeaders = (headers) => Object.fromEntries(Object.entries(headers).filter(([name]) => !WRITTEN_BY_NODE.has(name)));

/** Starts the bare server on `answers` ([{ path, acceptEncoding, headers, body }]); resolves with its process. */
export async function startBare(answers) {
  const dir = benchDir('tonwatch-bench-bare-');
  const list = answers.map(({ path, acceptEncoding, headers, body }, i) => {
    const bodyFile = join(dir, `body-${i}`);
    writeFileSync(bodyFile, body);
    return { path, acceptEncoding, headers, bodyFile };
  });
  writeFileSync(join(dir, 'answers.json'), JSON.stringify(list));
  const port = await freePort();
  const child = spawn(process.execPath, [new URL('./bare-server.mjs', import.meta.url).pathname, String(port), join(dir, 'answers.json')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/**
 * The v2 endpoint while 20 open status pages refresh: each asks /api/status and
 * /api/status/wallets every second, 40 requests a second from a poller in this process.
 * The baseline runs the same poller asking v2 itself at the same rate, so that both sides
 * pay for the poller (its CPU, its connection, its wakeups: on two cores that wrk and
 * tonwatch already fill, about 5 % of v2's rate) and the ratio is what serving the pages
 * costs. v2 with no poller at all is measured too, for information. Sides alternate; the
 * best run of each is kept.
 */
async function v2WithStatusPage(tonwatchUrl, pid, { seconds, rounds }) {
  const POLLED = {
    'no poller': null,
    'poller asking v2': () => '/api/v2/getOutMsgQueueSizes',
    'poller asking the pages': (i) => (i % 2 ? '/api/status' : '/api/status/wallets?q=&page=1'),
  };
  const best = {};
  for (let round = 0; round < rounds; round += 1) {
    for (const [side, pathOf] of Object.entries(POLLED)) {
      let poller;
      if (pathOf !== null) {
        let i = 0;
        poller = setInterval(() => {
          i += 1;
          void fetch(`${tonwatchUrl}${pathOf(i)}`).then(
            (r) => r.arrayBuffer(),
            () => undefined,
          );
        }, 25);
      }
      const result = await wrk(`${tonwatchUrl}/api/v2/getOutMsgQueueSizes`, { serverPid: pid, seconds });
      clearInterval(poller);
      if (!best[side] || result.rps > best[side].rps) best[side] = result;
    }
  }
  const withPages = best['poller asking the pages'];
  const samePoller = best['poller asking v2'];
  return { alone: best['no poller'], samePoller, withPages, ratio: withPages.rps / samePoller.rps };
}

/**
 * The v2 endpoint in fresh processes, both sides alike: `instances` tonwatch processes
 * started one after the other on the same persisted snapshot (each serving every part of
 * it, /readyz 200, as the table's one process does), alternating with as many bare
 * processes sending the same bytes, and, for information, as many sending the body with
 * Content-Type alone (the baseline of earlier runs); each warmed up for a second, then
 * loaded for `seconds`. The table's rows run in one tonwatch process, and the same build's
 * v2 throughput differs between processes of it: this gives the spread and the medians.
 *
 * A tonwatch process has start-up work the bare server has not: once the wallets file is in
 * (when /readyz turns 200) it runs one full collection and tightens the heap's growth.
 * Its first two seconds after /readyz are loaded and reported on their own (`startup`);
 * its warm-up follows.
 */
export async function v2InFreshProcesses({ instances, seconds }) {
  const port = await freePort();
  const data = await persistedDataDir(10_000, port, { logLevel: 'debug' });
  const url = `http://127.0.0.1:${port}`;
  const path = '/api/v2/getOutMsgQueueSizes';
  // A second of warm-up (the first seconds after start run slower: JIT), then the measured run.
  const warmedRun = async (base, pid) => {
    await wrk(`${base}${path}`, { serverPid: pid, seconds: 1 });
    return wrk(`${base}${path}`, { serverPid: pid, seconds });
  };
  const runs = { tonwatch: [], bare: [], bareTypeOnly: [], startup: [] };
  let answer;
  for (let i = 0; i < instances; i += 1) {
    const daemon = await spawnTonwatch(['--config', data.config]);
    // Its debug log, read and dropped: a full pipe would hold the daemon.
    daemon.stdout.resume();
    try {
      while ((await getWhenUp(`${url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 20));
      answer ??= await getWhenUp(`${url}${path}`);
      runs.startup.push(await wrk(`${url}${path}`, { serverPid: daemon.pid, seconds: 2 }));
      runs.tonwatch.push(await warmedRun(url, daemon.pid));
    } finally {
      daemon.kill('SIGTERM');
      await exited(daemon);
    }
    for (const [side, headers] of [
      ['bare', sameHeaders(answer.headers)],
      ['bareTypeOnly', { 'content-type': answer.headers['content-type'] }],
    ]) {
      const bare = await startBare([{ path, headers, body: answer.body }]);
      try {
        runs[side].push(await warmedRun(bare.url, bare.child.pid));
      } finally {
        bare.child.kill('SIGTERM');
        await exited(bare.child);
      }
    }
  }
  const rpsMedian = (list) => median(list.map((r) => r.rps));
  const tonwatch = rpsMedian(runs.tonwatch);
  const bare = rpsMedian(runs.bare);
  const bareTypeOnly = rpsMedian(runs.bareTypeOnly);
  return {
    instances,
    seconds,
    runs,
    tonwatch,
    bare,
    bareTypeOnly,
    ratio: tonwatch / bare,
    ratioTypeOnly: tonwatch / bareTypeOnly,
    startup: { rps: rpsMedian(runs.startup), p99: median(runs.startup.map((r) => r.p99)) },
  };
}

/**
 * Rows of the endpoint table. `extraLoad`, when given, is a path of tonwatch's loaded at
 * the same time by a second wrk (to show that serving it does not slow the row's path).
 */
export async function endpointBenchmarks({ seconds = 5, rounds = 2 } = {}) {
  const port = await freePort();
  const data = await persistedDataDir(10_000, port);
  const daemon = await spawnTonwatch(['--config', data.config]);
  const tonwatchUrl = `http://127.0.0.1:${port}`;
  const rows = [
    { name: 'GET /api/v2/getOutMsgQueueSizes', path: '/api/v2/getOutMsgQueueSizes', headers: {}, target: 0.9 },
    { name: 'GET /api/v3/walletStates, 100 addresses', path: `/api/v3/walletStates?${query(data.addresses(100))}`, headers: {}, target: 0.7 },
    { name: 'GET /metrics, 10,000 wallets, gzip', path: '/metrics', headers: { 'accept-encoding': 'gzip' }, target: 0.9 },
    { name: 'GET /metrics, 10,000 wallets, identity', path: '/metrics', headers: {}, target: null },
    { name: 'GET / (the status page), 10,000 wallets', path: '/', headers: {}, target: null },
    { name: 'GET /api/status, 10,000 wallets', path: '/api/status', headers: {}, target: null },
    // What an open status page asks every second besides /api/status: the first page of the wallets' table.
    { name: 'GET /api/status/wallets, 10,000 wallets, a page of 50', path: '/api/status/wallets?q=&page=1', headers: {}, target: null },
  ];
  try {
    // The bytes tonwatch answers each row with, once every part of the snapshot is loaded.
    await untilReady(tonwatchUrl);
    for (const row of rows) {
      for (;;) {
        const answer = await getWhenUp(`${tonwatchUrl}${row.path}`, row.headers);
        if (answer.status === 200) {
          row.body = answer.body;
          row.encoding = answer.headers['content-encoding'] ?? 'identity';
          row.bareHeaders = sameHeaders(answer.headers);
          break;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const bare = await startBare(
      rows.map((row) => ({ path: row.path, acceptEncoding: row.headers['accept-encoding'], headers: row.bareHeaders, body: row.body })),
    );
    try {
      const sides = [
        ['bare', bare.url, bare.child.pid],
        ['tonwatch', tonwatchUrl, daemon.pid],
      ];
      for (const row of rows) {
        // A second of warm-up a side (JIT, and the path's first buffers), then the measured rounds.
        for (const [, url, pid] of sides) await wrk(`${url}${row.path}`, { serverPid: pid, seconds: 1, headers: row.headers });
        const best = {};
        for (let round = 0; round < rounds; round += 1) {
          for (const [side, url, pid] of sides) {
            const result = await wrk(`${url}${row.path}`, { serverPid: pid, seconds, headers: row.headers });
            if (!best[side] || result.rps > best[side].rps) best[side] = result;
          }
        }
        Object.assign(row, best, { ratio: best.tonwatch.rps / best.bare.rps });
      }
      const big = { name: 'GET /api/v3/walletStates, 1024 addresses', path: `/api/v3/walletStates?${query(data.addresses(1024))}` };
      big.tonwatch = await wrk(`${tonwatchUrl}${big.path}`, { serverPid: daemon.pid, seconds, connections: 4 });
      const withPage = await v2WithStatusPage(tonwatchUrl, daemon.pid, { seconds, rounds });
      return { rows, big, withPage };
    } finally {
      bare.child.kill('SIGTERM');
    }
  } finally {
    daemon.kill('SIGTERM');
    await exited(daemon);
  }
}

/** The endpoint table, then the v2 endpoint in fresh processes. */
export async function httpBenchmarks({ seconds = 5, rounds = 2, instances = 5 } = {}) {
  const table = await endpointBenchmarks({ seconds, rounds });
  const fresh = await v2InFreshProcesses({ instances, seconds: Math.min(seconds, 3) });
  return { ...table, fresh };
}
