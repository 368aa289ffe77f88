import { readFile, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadWebConfig } from '../../src/config/web-config.js';
import type { WebConfig } from '../../src/domain/web-config.js';
import { jsonResponse } from '../../src/serve/response.js';
import { closeServer, listen } from '../../src/serve/lifecycle.js';
import { createHttpServer } from '../../src/serve/server.js';
import type { Route } from '../../src/serve/route.js';
import { createTlsServer } from '../../src/serve/tls.js';
import { basicAuth, makeTestCertificates, testHash, type TestCertificates } from '../helpers/certs.js';
import { createLogSink } from '../helpers/log.js';

/**
 * The web config on the real HTTP(S) server, port 0 on 127.0.0.1: TLS with certificates
 * made at test time, client certificates, basic auth and headers, and their reload.
 */

const ROUTES: [string, Route][] = [
  ['/metrics', { endpoint: 'metrics', handle: () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'tonwatch_up 1\n' }) }],
  ['/healthz', { endpoint: 'healthz', handle: () => jsonResponse(200, { ok: true }) }],
];

let certs: TestCertificates;
beforeAll(() => {
  certs = makeTestCertificates();
});

/** Writes a web config into the certificates' folder (relative paths work there) and loads it. */
async function webConfig(yaml: string): Promise<WebConfig> {
  const file = join(certs.dir, `web-${Math.random().toString(36).slice(2)}.yml`);
  await writeFile(file, yaml);
  const loaded = await loadWebConfig(file, (path) => readFile(path, 'utf8'));
  if (loaded.web === null) throw new Error(`web config refused: ${JSON.stringify(loaded.problems)}`);
  return loaded.web;
}

describe('web config on the server', () => {
  let server: Server | undefined;
  const agents: Agent[] = [];
  afterEach(async () => {
    if (server) await closeServer(server, 100);
    server = undefined;
    await Promise.all(agents.splice(0).map((a) => a.close()));
  });
  afterAll(() => undefined);

  async function start(initial: WebConfig) {
    let current = initial;
    const log = createLogSink();
    const served: [string, number][] = [];
    server = createHttpServer({
      routes: new Map(ROUTES),
      logger: log.logger,
      onServed: (e, c) => served.push([e, c]),
      web: () => current,
      tlsServer: createTlsServer,
    });
    const { port } = await listen(server, '127.0.0.1', 0);
    return { port, log, served, swap: (next: WebConfig) => (current = next) };
  }

  /** A client trusting the test CA, optionally presenting a client certificate. */
  function client(options: { cert?: string; key?: string } = {}): Agent {
    const agent = new Agent({ connect: { ca: certs.ca, ...options } });
    agents.push(agent);
    return agent;
  }

  it('serves HTTPS with the configured certificate, and refuses plain HTTP on the same port', async () => {
    const web = await webConfig('tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n');
    const { port } = await start(web);
    const answer = await undiciFetch(`https://127.0.0.1:${port}/metrics`, { dispatcher: client() });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('tonwatch_up 1\n');
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
    // A client that does not trust the CA gets no answer either.
    await expect(fetch(`https://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });

  it('basic auth: 401 with WWW-Authenticate on every path for no, a wrong or an unknown credential, the same answer each time', async () => {
    const web = await webConfig(`basic_auth_users:\n  prometheus: ${testHash('s3cret')}\n  grafana: ${testHash('other')}\n`);
    const { port, log, served } = await start(web);
    const url = (path: string) => `http://127.0.0.1:${port}${path}`;
    const refusals = [
      await fetch(url('/metrics')),
      await fetch(url('/metrics'), { headers: { authorization: basicAuth('prometheus', 'wrong') } }),
      await fetch(url('/metrics'), { headers: { authorization: basicAuth('nobody', 's3cret') } }),
      await fetch(url('/metrics'), { headers: { authorization: 'Bearer abc' } }),
      await fetch(url('/healthz')),
      await fetch(url('/no-such-path')),
    ];
    const shapes = await Promise.all(refusals.map(async (r) => [r.status, r.headers.get('www-authenticate'), await r.text()]));
    for (const shape of shapes) expect(shape).toEqual([401, 'Basic realm="tonwatch", charset="UTF-8"', '{"error":"unauthorized"}']);
    const ok = await fetch(url('/metrics'), { headers: { authorization: basicAuth('prometheus', 's3cret') } });
    expect(ok.status).toBe(200);
    expect((await fetch(url('/healthz'), { headers: { authorization: basicAuth('grafana', 'other') } })).status).toBe(200);
    expect(served.filter(([, code]) => code === 401)).toHaveLength(6);
    // Nothing of the credentials reaches the log.
    expect(log.text()).not.toMatch(/s3cret|wrong|\$2[aby]\$/);
  });

  it("lets the web config's headers win over a handler's own (the status page's CSP)", async () => {
    const routes: [string, Route][] = [
      [
        '/page',
        {
          endpoint: 'page',
          handle: () => ({ status: 200, headers: { 'content-type': 'text/html', 'content-security-policy': "default-src 'self'" }, body: 'x' }),
        },
      ],
    ];
    const log = createLogSink();
    const web = await webConfig("http_server_config:\n  headers:\n    Content-Security-Policy: default-src 'none'\n");
    server = createHttpServer({ routes: new Map(routes), logger: log.logger, onServed: () => undefined, web: () => web, tlsServer: createTlsServer });
    const { port } = await listen(server, '127.0.0.1', 0);
    const answer = await fetch(`http://127.0.0.1:${port}/page`);
    expect(answer.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(answer.headers.get('content-type')).toBe('text/html');
  });

  it('adds http_server_config.headers to every answer, refusals included', async () => {
    const web = await webConfig(
      `basic_auth_users:\n  prometheus: ${testHash('pw')}\nhttp_server_config:\n  headers:\n    X-Frame-Options: deny\n    Strict-Transport-Security: max-age=31536000\n`,
    );
    const { port } = await start(web);
    for (const answer of [
      await fetch(`http://127.0.0.1:${port}/metrics`),
      await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: basicAuth('prometheus', 'pw') } }),
    ]) {
      expect(answer.headers.get('x-frame-options')).toBe('deny');
      expect(answer.headers.get('strict-transport-security')).toBe('max-age=31536000');
    }
  });

  it('RequireAndVerifyClientCert: no certificate and a certificate no CA vouches for are refused; one signed by client_ca_file is served', async () => {
    const web = await webConfig(
      'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n',
    );
    const { port } = await start(web);
    const url = `https://127.0.0.1:${port}/metrics`;
    await expect(undiciFetch(url, { dispatcher: client() })).rejects.toThrow();
    await expect(undiciFetch(url, { dispatcher: client({ cert: certs.rogueCert, key: certs.rogueKey }) })).rejects.toThrow();
    const ok = await undiciFetch(url, { dispatcher: client({ cert: certs.clientCert, key: certs.clientKey }) });
    expect(ok.status).toBe(200);
  });

  it('RequireAnyClientCert takes any certificate but none; client_allowed_sans checks the SANs', async () => {
    const any = await webConfig('tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAnyClientCert\n');
    const t = await start(any);
    const url = `https://127.0.0.1:${t.port}/metrics`;
    await expect(undiciFetch(url, { dispatcher: client() })).rejects.toThrow();
    expect((await undiciFetch(url, { dispatcher: client({ cert: certs.rogueCert, key: certs.rogueKey }) })).status).toBe(200);
    // Reloaded with allowed SANs the rogue certificate does not carry.
    t.swap(
      await webConfig(
        'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAnyClientCert\n  client_allowed_sans: [scraper.example]\n',
      ),
    );
    await expect(undiciFetch(url, { dispatcher: client({ cert: certs.rogueCert, key: certs.rogueKey }) })).rejects.toThrow();
  });

  it('VerifyClientCertIfGiven serves without a certificate and refuses an unverified one; RequestClientCert takes any or none', async () => {
    const ifGiven = await webConfig(
      'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: ca.crt\n',
    );
    const t = await start(ifGiven);
    const url = `https://127.0.0.1:${t.port}/metrics`;
    expect((await undiciFetch(url, { dispatcher: client() })).status).toBe(200);
    expect((await undiciFetch(url, { dispatcher: client({ cert: certs.clientCert, key: certs.clientKey }) })).status).toBe(200);
    await expect(undiciFetch(url, { dispatcher: client({ cert: certs.rogueCert, key: certs.rogueKey }) })).rejects.toThrow();
    t.swap(await webConfig('tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequestClientCert\n'));
    expect((await undiciFetch(url, { dispatcher: client() })).status).toBe(200);
    expect((await undiciFetch(url, { dispatcher: client({ cert: certs.rogueCert, key: certs.rogueKey }) })).status).toBe(200);
  });

  it('a reload swaps users at once and TLS policy from the next connection, without a restart', async () => {
    const plain = await webConfig('tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n');
    const t = await start(plain);
    const url = `https://127.0.0.1:${t.port}/metrics`;
    expect((await undiciFetch(url, { dispatcher: client() })).status).toBe(200);
    t.swap(
      await webConfig(
        `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\nbasic_auth_users:\n  prometheus: ${testHash('pw')}\n`,
      ),
    );
    await expect(undiciFetch(url, { dispatcher: client() })).rejects.toThrow();
    const withCert = client({ cert: certs.clientCert, key: certs.clientKey });
    expect((await undiciFetch(url, { dispatcher: withCert })).status).toBe(401);
    expect((await undiciFetch(url, { dispatcher: withCert, headers: { authorization: basicAuth('prometheus', 'pw') } })).status).toBe(200);
  });
});
