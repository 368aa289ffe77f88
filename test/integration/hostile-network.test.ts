import { readdirSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCertificates, type TestCertificates } from '../helpers/certs.js';
import { eventually, ready, startDaemonProcess, startSimProcess, startTonwatch, type RunningProcess } from '../helpers/process.js';

/**
 * An attacker on the same network against the real daemon process, on loopback only:
 * sockets that never finish a TLS handshake, idle keep-alive connections past
 * listen.maxConnections. Each is bounded, counted, and the connection count and open
 * descriptors come back to where they were; a normal scrape gets in meanwhile. Every
 * limit is the default: nothing here is tuned for the test.
 */

const metric = (text: string, pattern: RegExp): number => Number(text.match(pattern)?.[1] ?? NaN);
const DROPPED = (reason: string) => new RegExp(`^tonwatch_http_connections_dropped_total\\{reason="${reason}"\\} (\\d+)$`, 'm');
const OPEN = /^tonwatch_http_connections (\d+)$/m;
const openDescriptors = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/** A TCP connection to 127.0.0.1:`port`, from `localAddress`; resolves once connected. */
function tcp(port: number, localAddress = '127.0.0.1'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves when the socket closes. */
const closed = (socket: Socket): Promise<void> =>
  new Promise((resolve) => {
    if (socket.destroyed) resolve();
    socket.on('error', () => undefined);
    socket.once('close', () => resolve());
  });

describe('hostile network, real daemon process', () => {
  let sim: RunningProcess;
  let simUrl: string;
  let certs: TestCertificates;
  let daemon: RunningProcess | undefined;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    certs = makeTestCertificates();
    ({ proc: sim, url: simUrl } = await startSimProcess(['--block-ms', '0', '--seed', '11']));
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await daemon?.stop('SIGKILL');
    daemon = undefined;
  });
  afterAll(async () => {
    await sim?.stop('SIGKILL');
  });

  async function startDaemon(extra: string): Promise<{ url: string; pid: number }> {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-hostile-net-'));
    const started = await startDaemonProcess(
      dir,
      `listen: { host: 127.0.0.1, port: 0${extra} }
upstreams: [ { name: sim, url: "${simUrl}", rps: 50, timeoutMs: 5000 } ]
schedule: { queueSizes: "*/2 * * * * *", wallets: "0 0 * * * *" }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 3600 }
`,
    );
    daemon = started.proc;
    return { url: started.url, pid: started.proc.child.pid ?? 0 };
  }

  it(
    'destroys TLS handshakes that never finish within the handshake timeout, and a TLS scrape gets in meanwhile; connections and descriptors come back',
    { timeout: 60_000 },
    async () => {
      await writeFile(join(certs.dir, 'web.yml'), 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n');
      await writeFile(
        join(certs.dir, 'tonwatch.yml'),
        `listen: { host: 127.0.0.1, port: 0, webConfigFile: web.yml }
upstreams: [ { name: sim, url: "${simUrl}", rps: 50, timeoutMs: 5000 } ]
schedule: { queueSizes: "*/2 * * * * *", wallets: "0 0 * * * *" }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 3600 }
`,
      );
      daemon = startTonwatch(['--config', join(certs.dir, 'tonwatch.yml')]);
      const [, url = ''] = await daemon.waitFor(/"url":"(https:\/\/127\.0\.0\.1:\d+)"/);
      const pid = daemon.child.pid ?? 0;
      const agent = new Agent({ connect: { ca: certs.ca }, pipelining: 0 });
      const scrape = async (): Promise<string> => {
        const response = await undiciFetch(`${url}/metrics`, { dispatcher: agent });
        return response.text();
      };
      await eventually(async () => ((await undiciFetch(`${url}/readyz`, { dispatcher: agent })).status === 200 ? true : undefined), 30_000, 'ready');
      const before = await scrape();
      const baseline = { connections: metric(before, OPEN), descriptors: openDescriptors(pid) };

      // 1,000 sockets that never send a byte: no ClientHello, no handshake.
      const opened = Date.now();
      const silent = await Promise.all(Array.from({ length: 1000 }, () => tcp(Number(new URL(url).port))));
      sockets.push(...silent);
      const allClosed = Promise.all(silent.map(closed));

      // A scrape meanwhile: in at once, over TLS, not locked out.
      const scrapeStarted = Date.now();
      const during = await eventually(async () => scrape(), 5_000, 'a TLS scrape beside 1,000 silent sockets');
      expect(Date.now() - scrapeStarted).toBeLessThan(5_000);
      expect(during).toContain('tonwatch_up');

      // Every silent socket is closed by the server: those past a client's share at once, the rest at the 10 s handshake timeout.
      await allClosed;
      expect(Date.now() - opened).toBeLessThan(14_000);
      const after = await eventually(async () => {
        const text = await scrape();
        return metric(text, OPEN) <= baseline.connections + 1 ? text : undefined;
      }, 5_000);
      const cut = metric(after, DROPPED('tls_handshake_timeout')) + metric(after, DROPPED('idle_evicted'));
      expect(cut).toBeGreaterThanOrEqual(1000);
      expect(metric(after, DROPPED('tls_handshake_timeout'))).toBeGreaterThan(0);
      await eventually(async () => (openDescriptors(pid) <= baseline.descriptors + 2 ? true : undefined), 5_000, 'descriptors back to the baseline');
      await agent.close();
    },
  );

  it(
    'lets a scrape in beside 2,000 idle keep-alive clients that reconnect as soon as they are closed, evicting the longest idle',
    { timeout: 60_000 },
    async () => {
      const { url, pid } = await startDaemon('');
      await ready(url, 30_000);
      const port = Number(new URL(url).port);
      const baseline = openDescriptors(pid);
      let stop = false;
      let answered = 0;
      /** One keep-alive client: a /healthz, then idle; reconnects whenever the server closes it. */
      const client = async (): Promise<void> => {
        while (!stop) {
          const socket = await tcp(port).catch(() => null);
          if (socket === null) continue;
          sockets.push(socket);
          socket.on('data', (chunk: Buffer) => {
            if (chunk.includes('HTTP/1.1 200')) answered += 1;
          });
          socket.write('GET /healthz HTTP/1.1\r\nHost: tonwatch\r\nConnection: keep-alive\r\n\r\n');
          await closed(socket);
        }
      };
      const clients = Array.from({ length: 2000 }, client);
      await eventually(async () => (answered >= 1000 ? true : undefined), 20_000, 'a thousand keep-alive clients answered');

      // A Prometheus-style scrape on a connection of its own.
      const prometheus = new Agent({ pipelining: 0 });
      const started = Date.now();
      const status = await eventually(
        async () => (await undiciFetch(`${url}/metrics`, { dispatcher: prometheus, headers: { 'accept-encoding': 'gzip' } })).status,
        5_000,
        'a scrape beside 2,000 keep-alive clients',
      );
      expect(status).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);

      stop = true;
      for (const socket of sockets.splice(0)) socket.destroy();
      await Promise.all(clients);
      const text = await eventually(async () => {
        const body = await (await undiciFetch(`${url}/metrics`, { dispatcher: prometheus })).text();
        return metric(body, OPEN) <= 2 ? body : undefined;
      }, 10_000);
      expect(metric(text, DROPPED('idle_evicted'))).toBeGreaterThan(0);
      await eventually(async () => (openDescriptors(pid) <= baseline + 3 ? true : undefined), 5_000, 'descriptors back to the baseline');
      await prometheus.close();
    },
  );
});
