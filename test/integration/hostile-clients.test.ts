import { connect, type Socket } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, ready, startDaemonProcess, startSimProcess, type RunningProcess } from '../helpers/process.js';

/**
 * Hostile clients against the real daemon process on loopback: slowloris connections that
 * never finish their headers, readers that take a 7 MB /metrics body and then read nothing,
 * and more connections than listen.maxConnections. Each is cut or makes room, counted, and
 * v2 goes on answering meanwhile.
 */

const metric = (text: string, pattern: RegExp): number => Number(text.match(pattern)?.[1] ?? NaN);
const DROPPED = (reason: string) => new RegExp(`^tonwatch_http_connections_dropped_total\\{reason="${reason}"\\} (\\d+)$`, 'm');

/** Resolves when the socket closes, with how long after `from` it did. */
const closedAfter = (socket: Socket, from: number): Promise<number> =>
  new Promise((resolve) => {
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(Date.now() - from));
  });

describe('hostile clients, real daemon process', () => {
  let sim: RunningProcess;
  let daemon: RunningProcess;
  let url: string;
  let port: number;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-hostile-'));
    let simUrl: string;
    ({ proc: sim, url: simUrl } = await startSimProcess(['--block-ms', '0', '--accounts', '10000', '--seed', '6']));
    const accounts = (await (await fetch(`${simUrl}/_sim/accounts`)).json()) as { raw: string }[];
    await writeFile(join(dir, 'watch.txt'), accounts.map((a, i) => `${a.raw},wallet-${i}`).join('\n'));
    ({ proc: daemon, url } = await startDaemonProcess(
      dir,
      `listen: { host: 127.0.0.1, port: 0, maxConnections: 150, sendTimeoutSeconds: 3, maxMetricsRequests: 0 }
upstreams: [ { name: sim, url: "${simUrl}", rps: 200, timeoutMs: 5000 } ]
schedule: { queueSizes: "*/2 * * * * *", wallets: "0 0 * * * *" }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 3600 }
watchlistFiles: [ ./watch.txt ]
`,
    ));
    port = Number(new URL(url).port);
    await ready(url, 60_000);
  }, 90_000);

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await daemon?.stop('SIGKILL');
    await sim?.stop('SIGKILL');
  });

  const open = (): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket));
      socket.once('error', reject);
      sockets.push(socket);
    });

  it(
    'cuts slowloris connections within the header timeout and slow readers within the send timeout, counts both, and v2 answers meanwhile',
    { timeout: 60_000 },
    async () => {
      const started = Date.now();
      // 50 slowloris connections: a header line every two seconds, never the blank line.
      const slowloris = await Promise.all(Array.from({ length: 50 }, open));
      const drip = setInterval(() => {
        for (const s of slowloris) if (!s.destroyed) s.write('X-Slow: 1\r\n');
      }, 2_000);
      for (const s of slowloris) {
        s.resume();
        s.write('GET /api/v2/getOutMsgQueueSizes HTTP/1.1\r\nHost: x\r\n');
      }
      const slowlorisClosed = Promise.all(slowloris.map((s) => closedAfter(s, started)));
      // 20 readers ask for the identity /metrics body (about 7 MB) four times, pipelined, and
      // read nothing: more than loopback's socket buffers take.
      const readers = await Promise.all(Array.from({ length: 20 }, open));
      for (const s of readers) {
        s.pause();
        s.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(4));
      }
      const scrape = async () => (await fetch(`${url}/metrics`, { headers: { 'accept-encoding': 'gzip' } })).text();

      // v2 one request at a time meanwhile.
      const latencies: number[] = [];
      const until = Date.now() + 12_000;
      while (Date.now() < until) {
        const t = performance.now();
        const response = await fetch(`${url}/api/v2/getOutMsgQueueSizes`);
        await response.arrayBuffer();
        expect(response.status).toBe(200);
        latencies.push(performance.now() - t);
      }
      clearInterval(drip);
      latencies.sort((a, b) => a - b);
      console.log(
        `v2 beside 50 slowloris and 20 stalled readers: ${latencies.length} requests, p50 ${latencies[Math.floor(latencies.length / 2)]?.toFixed(1)} ms, p99 ${latencies[Math.floor(latencies.length * 0.99)]?.toFixed(1)} ms`,
      );

      // The header timeout is 10 s, checked every second (Node's default check was every 30 s).
      const loris = await slowlorisClosed;
      expect(Math.max(...loris)).toBeLessThan(16_000);
      expect(Math.min(...loris)).toBeGreaterThanOrEqual(9_000);
      // A reader that takes nothing is cut at the send timeout (3 s here, swept every second):
      // all twenty by the time the slowloris connections are gone.
      const text = await scrape();
      expect(metric(text, DROPPED('send_timeout'))).toBe(20);
      expect(metric(text, DROPPED('request_timeout'))).toBeGreaterThanOrEqual(50);
    },
  );

  it('makes room past listen.maxConnections by closing the longest-idle connections at once, counts them, and serves meanwhile', async () => {
    const idle = await Promise.all(Array.from({ length: 200 }, () => open().catch(() => null)));
    const opened = idle.filter((s): s is Socket => s !== null);
    // Past the cap (and one address's share of it, half) the longest-idle connections are closed at once, none of them read.
    const closed = await Promise.all(opened.map((s) => Promise.race([closedAfter(s, Date.now()), new Promise<number>((r) => setTimeout(() => r(-1), 1_000))])));
    expect(closed.filter((ms) => ms >= 0).length).toBeGreaterThanOrEqual(45);
    // The newest are the ones kept.
    expect(closed.slice(-20).every((ms) => ms === -1)).toBe(true);
    for (const s of opened) s.destroy();
    const text = await eventually(
      async () => {
        const response = await fetch(`${url}/metrics`, { headers: { 'accept-encoding': 'gzip' } });
        return response.status === 200 ? response.text() : undefined;
      },
      10_000,
      'metrics once the idle connections are gone',
    );
    expect(metric(text, DROPPED('idle_evicted'))).toBeGreaterThanOrEqual(45);
    expect(metric(text, DROPPED('max_connections'))).toBe(0);
    expect(metric(text, /^tonwatch_http_connections (\d+)$/m)).toBeLessThanOrEqual(150);
  });
});
