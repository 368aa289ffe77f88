import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';

/**
 * Certificates made at test time with Debian's openssl: a CA, a server certificate for
 * 127.0.0.1/localhost signed by it, a client certificate signed by it, and a self-signed
 * client certificate no CA vouches for. EC P-256 keys: fast to make.
 */
export interface TestCertificates {
  readonly dir: string;
  /** File paths, and the PEM texts of what clients need. */
  readonly caFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  readonly rogueCertFile: string;
  readonly rogueKeyFile: string;
  readonly ca: string;
  readonly clientCert: string;
  readonly clientKey: string;
  readonly rogueCert: string;
  readonly rogueKey: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function keyAndCsr(dir: string, name: string, subject: string): void {
  openssl(dir, [
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    subject,
  ]);
}

function sign(dir: string, name: string, extensions: string): void {
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-out',
    `${name}.crt`,
    '-extfile',
    `${name}.ext`,
  ]);
}

/** A self-signed certificate `<name>.crt` with its key `<name>.key`. */
function selfSigned(dir: string, name: string, subject: string, extensions: string[]): void {
  const keyOptions = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(dir, [
    'req',
    '-x509',
    ...keyOptions,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-subj',
    subject,
    ...extensions.flatMap((e) => ['-addext', e]),
  ]);
}

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'tonwatch-certs-'));
  selfSigned(dir, 'ca', '/CN=tonwatch test CA', ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign']);
  keyAndCsr(dir, 'server', '/CN=127.0.0.1');
  sign(dir, 'server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  keyAndCsr(dir, 'client', '/CN=prometheus');
  sign(dir, 'client', 'subjectAltName=DNS:prometheus.monitoring\nextendedKeyUsage=clientAuth\n');
  // Same SAN as the client certificate, but no CA vouches for it.
  selfSigned(dir, 'rogue', '/CN=rogue', ['subjectAltName=DNS:prometheus.monitoring']);
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  return {
    dir,
    caFile: join(dir, 'ca.crt'),
    serverCertFile: join(dir, 'server.crt'),
    serverKeyFile: join(dir, 'server.key'),
    clientCertFile: join(dir, 'client.crt'),
    clientKeyFile: join(dir, 'client.key'),
    rogueCertFile: join(dir, 'rogue.crt'),
    rogueKeyFile: join(dir, 'rogue.key'),
    ca: read('ca.crt'),
    clientCert: read('client.crt'),
    clientKey: read('client.key'),
    rogueCert: read('rogue.crt'),
    rogueKey: read('rogue.key'),
  };
}

/** A bcrypt hash at the lowest cost (tests need not pay cost 10). */
export function testHash(password: string): string {
  return bcrypt.hashSync(password, 4);
}

/** An Authorization header value for basic auth. */
export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
