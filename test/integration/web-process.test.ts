import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, makeTestCertificates, testHash, type TestCertificates } from '../helpers/certs.js';
import { eventually, freePort, MAIN, startTonwatch, type RunningProcess } from '../helpers/process.js';

/**
 * The real `tonwatch` process with a web config: TLS and basic auth on every path, the
 * file reloaded when it changes (a bad one refused, the old kept), exit 78 for a bad one
 * at start, check-config redaction, and `tonwatch healthcheck`. No upstream is needed:
 * the upstream URL is a closed loopback port.
 */

const PATHS = ['/', '/metrics', '/healthz', '/readyz', '/api/v2/getOutMsgQueueSizes', '/api/v3/walletStates?address=0:' + '0'.repeat(64), '/no-such-path'];

let certs: TestCertificates;
let agent: Agent;
beforeAll(() => {
  certs = makeTestCertificates();
  agent = new Agent({ connect: { ca: certs.ca } });
});
afterAll(() => agent.close());

const config = (web: string) => `
listen: { host: 127.0.0.1, port: 0, webConfigFile: ${web} }
upstreams: [{ name: down, url: "http://127.0.0.1:1", rps: 5, timeoutMs: 200 }]
retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 20 }
snapshot: { file: ./snapshot.json }
log: { level: debug }
`;
const webYaml = (password: string) =>
  `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prometheus: "${testHash(password)}"\n`;

function run(args: string[]) {
  return spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 20_000 });
}

describe('tonwatch process with a web config', () => {
  let daemon: RunningProcess | undefined;
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
  });

  async function startWith(password: string): Promise<string> {
    await writeFile(join(certs.dir, 'web.yml'), webYaml(password));
    await writeFile(join(certs.dir, 'tonwatch.yml'), config('web.yml'));
    daemon = startTonwatch(['--config', join(certs.dir, 'tonwatch.yml')]);
    const [, url] = await daemon.waitFor(/"url":"(https:\/\/127\.0\.0\.1:\d+)"/);
    return url ?? '';
  }
  const status = async (url: string, authorization?: string) =>
    (await undiciFetch(url, { dispatcher: agent, ...(authorization === undefined ? {} : { headers: { authorization } }) })).status;

  it('answers every path over TLS only with the right credentials, and logs none of them', async () => {
    const url = await startWith('correct horse');
    for (const path of PATHS) {
      expect([path, await status(url + path)]).toEqual([path, 401]);
      expect([path, await status(url + path, basicAuth('prometheus', 'wrong'))]).toEqual([path, 401]);
      expect([path, await status(url + path, basicAuth('grafana', 'correct horse'))]).toEqual([path, 401]);
      expect([path, await status(url + path, basicAuth('prometheus', 'correct horse'))]).not.toEqual([path, 401]);
    }
    expect(await status(`${url}/healthz`, basicAuth('prometheus', 'correct horse'))).toBe(200);
    await expect(fetch(url.replace('https:', 'http:') + '/healthz')).rejects.toThrow();
    // The healthcheck reads the same config: https, the real port, alive behind basic auth.
    const port = new URL(url).port;
    await writeFile(join(certs.dir, 'health.yml'), config('web.yml').replace('port: 0', `port: ${port}`));
    const health = run(['healthcheck', '--config', join(certs.dir, 'health.yml')]);
    expect(health.stdout).toMatch(/^healthy: https:\/\/127\.0\.0\.1:\d+\/healthz: 401/);
    expect(health.status).toBe(0);
    await daemon?.stop();
    const down = run(['healthcheck', '--config', join(certs.dir, 'health.yml')]);
    expect(down.stdout).toMatch(/^unhealthy: .*ECONNREFUSED/);
    expect(down.status).toBe(1);
    expect(daemon?.output()).not.toMatch(/correct horse|wrong|\$2[aby]\$|PRIVATE KEY/);
  });

  it('the healthcheck reads $TONWATCH_CONFIG like the daemon: plain HTTP on a port of its own is healthy', async () => {
    const port = await freePort();
    await writeFile(join(certs.dir, 'plain-port.yml'), config('nothing.yml').replace(/listen: .*$/m, `listen: { host: 0.0.0.0, port: ${port} }`));
    daemon = startTonwatch([], { TONWATCH_CONFIG: join(certs.dir, 'plain-port.yml') });
    await daemon.waitFor(/tonwatch started/);
    const health = spawnSync(process.execPath, [MAIN, 'healthcheck'], {
      encoding: 'utf8',
      env: { ...process.env, TONWATCH_CONFIG: join(certs.dir, 'plain-port.yml') },
    });
    expect(health.stdout).toBe(`healthy: http://127.0.0.1:${port}/healthz: 200\n`);
    expect(health.status).toBe(0);
  });

  it('re-reads the web config when it changes: a bad one is refused and the old kept, a good one applies without a restart', async () => {
    const url = await startWith('first');
    const ok = basicAuth('prometheus', 'first');
    expect(await status(`${url}/metrics`, ok)).toBe(200);
    await writeFile(join(certs.dir, 'web.yml'), 'basic_auth_users:\n  prometheus: not-a-hash\n');
    await daemon?.waitFor(/new configuration refused/);
    expect(await status(`${url}/metrics`, ok)).toBe(200);
    expect(daemon?.output()).not.toContain('not-a-hash');
    await writeFile(join(certs.dir, 'web.yml'), webYaml('second'));
    await eventually(async () => ((await status(`${url}/metrics`, basicAuth('prometheus', 'second'))) === 200 ? true : undefined), 10_000, 'the new password');
    expect(await status(`${url}/metrics`, ok)).toBe(401);
  });

  it('refuses a bad web config at start with exit 78, listing every problem; check-config redacts the hashes', async () => {
    await writeFile(
      join(certs.dir, 'bad-web.yml'),
      'tls_server_config:\n  cert_file: nope.crt\n  key_file: server.key\nbasic_auth_users:\n  prometheus: hunter2\n',
    );
    await writeFile(join(certs.dir, 'bad.yml'), config('bad-web.yml'));
    const bad = run(['--config', join(certs.dir, 'bad.yml')]);
    expect(bad.status).toBe(78);
    expect(bad.stderr).toContain('tls_server_config.cert_file: cannot read');
    expect(bad.stderr).toContain('basic_auth_users.prometheus: not a bcrypt hash');
    expect(bad.stderr).not.toContain('hunter2');

    await writeFile(join(certs.dir, 'web.yml'), webYaml('pw'));
    await writeFile(join(certs.dir, 'plain.yml'), config('nothing.yml'));
    // --web.config.file wins over the key (which names a missing file).
    const checked = run(['check-config', '--config', join(certs.dir, 'plain.yml'), '--web.config.file', join(certs.dir, 'web.yml')]);
    expect(checked.status).toBe(0);
    expect(checked.stdout).toContain('prometheus: <redacted>');
    expect(checked.stdout).toContain('client_auth_type: NoClientCert');
    expect(checked.stdout).not.toMatch(/\$2[aby]\$|PRIVATE KEY/);
  });
});
