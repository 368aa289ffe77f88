import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeWebConfig, loadWebConfig } from '../../src/config/web-config.js';
import { makeTestCertificates, testHash, type TestCertificates } from '../helpers/certs.js';

/** Reading exporter-toolkit web config files: what is accepted, and every problem at once. */

let certs: TestCertificates;
beforeAll(() => {
  certs = makeTestCertificates();
});

async function load(yaml: string, dir = certs.dir) {
  const file = join(dir, `web-${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(file, yaml);
  return { file, ...(await loadWebConfig(file, (path) => readFile(path, 'utf8'))) };
}

describe('web config file', () => {
  it('reads TLS, client certificates, users and headers, paths relative to the file, with exporter-toolkit defaults', async () => {
    const hash = testHash('pw');
    const { web, problems, file } = await load(
      [
        'tls_server_config:',
        '  cert_file: server.crt',
        `  key_file: ${certs.serverKeyFile}`,
        '  client_auth_type: RequireAndVerifyClientCert',
        '  client_ca_file: ca.crt',
        '  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]',
        '  curve_preferences: [X25519, CurveP256]',
        'http_server_config:',
        '  http2: true',
        '  headers: { X-Content-Type-Options: nosniff }',
        `basic_auth_users: { prometheus: "${hash}" }`,
      ].join('\n'),
    );
    expect(problems).toEqual([]);
    expect(web?.files).toEqual([file, certs.serverCertFile, certs.serverKeyFile, certs.caFile]);
    expect(web?.users).toEqual({ prometheus: hash });
    expect(web?.headers).toEqual({ 'X-Content-Type-Options': 'nosniff' });
    expect(web?.tls?.clientAuth).toBe('RequireAndVerifyClientCert');
    expect(web?.tls?.minVersion).toBe('TLSv1.2');
    expect(web?.tls?.maxVersion).toBe('TLSv1.3');
    expect(web?.tls?.ciphers).toContain('ECDHE-ECDSA-AES128-GCM-SHA256');
    expect(web?.tls?.ecdhCurve).toBe('X25519:P-256');
  });

  it('basic auth alone is plain HTTP; an empty file is nothing at all', async () => {
    expect((await load(`basic_auth_users:\n  a: ${testHash('x')}\n`)).web?.tls).toBeNull();
    expect((await load('')).web).toMatchObject({ tls: null, users: {}, headers: {} });
  });

  it('lists every problem at once, each with the file and key, and never repeats a hash or a key', async () => {
    const { problems, file } = await load(
      [
        'tls_server_config:',
        '  cert_file: missing.crt',
        '  client_auth_type: RequireSomething',
        '  min_version: TLS14',
        '  curve_preferences: [CurveP999]',
        '  surprise: 1',
        'http_server_config:',
        '  headers: { X-Powered-By: tonwatch }',
        'basic_auth_users:',
        '  prometheus: plaintext-password',
        'rate_limit: { burst: 1 }',
      ].join('\n'),
    );
    const text = problems.map((p) => `${p.path}: ${p.message}`).join('\n');
    expect(problems.every((p) => p.path.startsWith(`web config ${file}`))).toBe(true);
    for (const expected of [
      'tls_server_config.client_auth_type',
      'tls_server_config.min_version',
      'tls_server_config.curve_preferences.0',
      'unknown key: surprise',
      'unknown key: rate_limit',
    ]) {
      expect(text).toContain(expected);
    }
    // Key errors come in a second pass over a file whose shape is right.
    const second = await load(
      [
        'tls_server_config:',
        '  cert_file: missing.crt',
        '  client_ca_file: ca.crt',
        'http_server_config:',
        '  headers: { X-Powered-By: tonwatch, X-Frame-Options: allow }',
        'basic_auth_users:',
        '  prometheus: plaintext-password',
        '  "a:b": "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi"',
      ].join('\n'),
    );
    const secondText = second.problems.map((p) => `${p.path}: ${p.message}`).join('\n');
    for (const expected of [
      'tls_server_config.cert_file: cannot read',
      'tls_server_config.key_file: missing',
      'tls_server_config.client_auth_type: client CAs are given',
      'http_server_config.headers.X-Powered-By: this header cannot be configured',
      'http_server_config.headers.X-Frame-Options: must be one of deny, sameorigin',
      'basic_auth_users.prometheus: not a bcrypt hash',
      'basic_auth_users.a:b: a user name cannot contain ":"',
    ]) {
      expect(secondText).toContain(expected);
    }
    expect(secondText).not.toContain('plaintext-password');
    expect(second.web).toBeNull();
  });

  it('refuses a key that does not belong to the certificate, and unreadable files', async () => {
    const mismatch = await load(`tls_server_config:\n  cert_file: server.crt\n  key_file: client.key\n`);
    expect(mismatch.problems.map((p) => p.message).join()).toMatch(/cannot be used/);
    const missing = await loadWebConfig(join(mkdtempSync(join(tmpdir(), 'tw-')), 'nope.yml'), (path) => readFile(path, 'utf8'));
    expect(missing.problems[0]?.message).toMatch(/cannot read/);
  });

  it('describes itself for check-config with hashes and key material redacted', async () => {
    const hash = testHash('pw');
    const { web } = await load(`tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users: { prometheus: "${hash}" }\n`);
    if (!web) throw new Error('refused');
    const described = JSON.stringify(describeWebConfig(web));
    expect(described).toContain('"prometheus":"<redacted>"');
    expect(described).not.toContain(hash);
    expect(described).not.toContain('PRIVATE KEY');
  });
});
