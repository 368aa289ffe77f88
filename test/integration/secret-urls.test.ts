import { spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../src/serve/lifecycle.js';
import { eventually, MAIN, startDaemonProcess, startSimProcess, type RunningProcess } from '../helpers/process.js';

/**
 * Secrets planted in upstream URLs, the ways providers take them: a key in the path
 * (`https://host/<key>/`), a key in the query (`?api_key=<key>`), and a password in the
 * user part (`user:pass@`). The provider here is a proxy in front of the simulator that
 * answers only with both keys, and whose first answers are error pages echoing the URL
 * they were asked for, as nginx's do. The daemon polls through it, and no key shows
 * anywhere: its logs (at debug), the status page and its JSON, /metrics, check-config.
 */

const PATH_KEY = 'pathkey-5f3b9c1e7a2d4f60';
const QUERY_KEY = 'querykey-8e1d2c3b4a5f6071';
const PASSWORD = 'passwd-93b7a1c5e2f40d68';
const SECRETS = [PATH_KEY, QUERY_KEY, PASSWORD];

describe('secrets in upstream URLs, real daemon process', () => {
  let sim: RunningProcess;
  let daemon: RunningProcess;
  let proxy: Server;
  let url: string;
  let configPath: string;
  let proxied = 0;
  let proxyPort = 0;

  beforeAll(async () => {
    let simUrl: string;
    ({ proc: sim, url: simUrl } = await startSimProcess(['--block-ms', '0', '--seed', '13']));
    const accounts = (await (await fetch(`${simUrl}/_sim/accounts`)).json()) as { raw: string }[];
    let asked = 0;
    proxy = createServer((req, res) => {
      asked += 1;
      const target = new URL(req.url ?? '/', 'http://proxy');
      const keyed = target.pathname.startsWith(`/${PATH_KEY}/`) && target.searchParams.get('api_key') === QUERY_KEY;
      if (!keyed || asked <= 3) {
        // An error page that echoes what it was asked for.
        res.writeHead(keyed ? 502 : 403, { 'content-type': 'text/html' });
        res.end(`<html><body><h1>Bad Gateway</h1><p>The requested URL ${req.url} could not be served.</p></body></html>`);
        return;
      }
      target.searchParams.delete('api_key');
      const forwarded = `${simUrl}${target.pathname.slice(PATH_KEY.length + 1)}${target.search}`;
      proxied += 1;
      fetch(forwarded)
        .then(async (answer) => {
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          res.end(Buffer.from(await answer.arrayBuffer()));
        })
        // The simulator cut the connection (an injected reset, or it stopping): the proxy cuts its own.
        .catch(() => res.destroy());
    });
    const { port } = await listen(proxy, '127.0.0.1', 0);
    proxyPort = port;
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-secret-urls-'));
    ({ proc: daemon, url } = await startDaemonProcess(
      dir,
      `listen: { host: 127.0.0.1, port: 0 }
upstreams:
  - { name: provider, url: "http://127.0.0.1:${port}/${PATH_KEY}/?api_key=${QUERY_KEY}", rps: 20, timeoutMs: 2000 }
  - { name: fallback, url: "http://tonwatch:${PASSWORD}@127.0.0.1:1/", rps: 5, timeoutMs: 500 }
retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 50 }
schedule: { queueSizes: "*/2 * * * * *", wallets: "*/2 * * * * *" }
lagCheck: { everySeconds: 2 }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 3600 }
watchlist: [ { address: "${accounts[0]?.raw}", name: hot-1 } ]
log: { level: debug }
`,
    ));
    configPath = join(dir, 'tonwatch.yml');
  }, 60_000);

  afterAll(async () => {
    await daemon?.stop('SIGKILL');
    await sim?.stop('SIGKILL');
    proxy?.close();
  });

  it('polls with the keys, and shows none of them anywhere', { timeout: 60_000 }, async () => {
    // Polled through the proxy: the keys were sent.
    await eventually(async () => ((await fetch(`${url}/readyz`)).status === 200 ? true : undefined), 30_000, 'ready through the keyed upstream');
    expect(proxied).toBeGreaterThan(0);
    const shown: Record<string, string> = {
      '/': await (await fetch(`${url}/`)).text(),
      '/api/status': await (await fetch(`${url}/api/status`)).text(),
      '/metrics': await (await fetch(`${url}/metrics`)).text(),
      'check-config': spawnSync(process.execPath, [MAIN, 'check-config', '--config', configPath], { encoding: 'utf8' }).stdout,
    };
    // The error pages were seen and logged (the daemon's logs at debug).
    await daemon.waitFor(/upstream request failed/);
    shown['logs'] = daemon.output();
    for (const [where, text] of Object.entries(shown)) {
      expect(text.length, where).toBeGreaterThan(0);
      for (const secret of SECRETS) expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
    }
    // What is shown instead: scheme, host and port, and that there was more.
    expect(shown['/api/status']).toContain(`http://127.0.0.1:${proxyPort}/…`);
    expect(shown['check-config']).toContain(`url: http://127.0.0.1:${proxyPort}/…`);
    expect(shown['check-config']).toMatch(/url: http:\/\/127\.0\.0\.1:1\n/);
  });
});
