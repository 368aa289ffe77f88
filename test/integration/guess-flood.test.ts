import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth } from '../helpers/certs.js';
import { eventually, startDaemonProcess, startSimProcess, type RunningProcess } from '../helpers/process.js';

/**
 * A password-guess flood against the real daemon with basic auth (a bcrypt hash of the
 * cost people use, 10): 100 distinct wrong guesses a second for 30 s from ten addresses of
 * the loopback network, sent by a process of its own. Meanwhile Prometheus (on 127.0.0.1,
 * its credential checked once before the flood, as its first scrape would have) asks v2
 * every 20 ms: every answer is 200, and v2's p99 stays under 50 ms.
 */

const FLOOD_SECONDS = 30;
const GUESSES_PER_SECOND = 100;

/** The flood: a node process sending distinct wrong guesses, spread over 127.0.0.2–11; prints its status counts as JSON. */
const FLOOD_SCRIPT = `
const http = require('node:http');
const [url, seconds, rate] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
const counts = {};
let sent = 0;
const started = Date.now();
const timer = setInterval(() => {
  const due = Math.floor(((Date.now() - started) / 1000) * rate);
  while (sent < due) {
    const n = sent++;
    const auth = 'Basic ' + Buffer.from('prometheus:guess-' + n + '-' + Math.random()).toString('base64');
    const req = http.get(url, { localAddress: '127.0.0.' + (2 + (n % 10)), headers: { authorization: auth }, agent: false }, (res) => {
      counts[res.statusCode] = (counts[res.statusCode] || 0) + 1;
      res.resume();
    });
    req.on('error', () => { counts.error = (counts.error || 0) + 1; });
  }
  if (Date.now() - started >= seconds * 1000) {
    clearInterval(timer);
    setTimeout(() => { process.stdout.write(JSON.stringify(counts)); process.exit(0); }, 2000);
  }
}, 10);
`;

describe('password-guess flood, real daemon process', () => {
  let sim: RunningProcess;
  let daemon: RunningProcess;
  let url: string;
  const password = 'correct horse battery staple';

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-guess-flood-'));
    let simUrl: string;
    ({ proc: sim, url: simUrl } = await startSimProcess(['--block-ms', '0', '--seed', '12']));
    await writeFile(join(dir, 'web.yml'), `basic_auth_users:\n  prometheus: "${bcrypt.hashSync(password, 10)}"\n`);
    ({ proc: daemon, url } = await startDaemonProcess(
      dir,
      `listen: { host: 127.0.0.1, port: 0, webConfigFile: web.yml }
upstreams: [ { name: sim, url: "${simUrl}", rps: 50, timeoutMs: 5000 } ]
schedule: { queueSizes: "*/2 * * * * *", wallets: "0 0 * * * *" }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 3600 }
`,
    ));
  }, 60_000);
  afterAll(async () => {
    await daemon?.stop('SIGKILL');
    await sim?.stop('SIGKILL');
  });

  it('answers every request with the right credentials, v2 p99 under 50 ms, and throttles the guesses', { timeout: 90_000 }, async () => {
    const prometheus = new Agent({ pipelining: 0 });
    const headers = { authorization: basicAuth('prometheus', password) };
    const v2 = `${url}/api/v2/getOutMsgQueueSizes`;
    // The first scrape: its credential checked (bcrypt) and remembered; the queue sizes polled.
    await eventually(
      async () => ((await undiciFetch(v2, { dispatcher: prometheus, headers })).status === 200 ? true : undefined),
      30_000,
      'v2 with credentials',
    );

    const flood = spawn(process.execPath, ['-e', FLOOD_SCRIPT, v2, String(FLOOD_SECONDS), String(GUESSES_PER_SECOND)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let floodOutput = '';
    flood.stdout.on('data', (chunk: Buffer) => (floodOutput += chunk.toString()));
    const floodDone = new Promise<void>((resolve) => flood.once('exit', () => resolve()));

    const statuses = new Map<number, number>();
    const latencies: number[] = [];
    const until = Date.now() + FLOOD_SECONDS * 1000;
    while (Date.now() < until) {
      const started = performance.now();
      const response = await undiciFetch(v2, { dispatcher: prometheus, headers });
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 20));
    }
    await floodDone;
    const guesses = JSON.parse(floodOutput || '{}') as Record<string, number>;
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? Infinity;
    console.log(
      `guess flood: ${JSON.stringify(guesses)}; authorized v2: ${latencies.length} requests, ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `p50 ${latencies[Math.floor(latencies.length / 2)]?.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`,
    );
    expect([...statuses.keys()]).toEqual([200]);
    expect(p99).toBeLessThan(50);
    // The guesses were refused (401), most of them without bcrypt (429: throttled per address); none got in.
    expect(guesses['200']).toBeUndefined();
    expect(guesses['429'] ?? 0).toBeGreaterThan(guesses['401'] ?? 0);
    await prometheus.close();
  });
});
