import { parse } from 'yaml';
import { createSecureContext } from 'node:tls';
import { dirname, isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import { CLIENT_AUTH_TYPES, secureContextOptions, type TlsSettings, type WebConfig } from '../domain/web-config.js';
import { CIPHER_SUITES, CURVES, TLS13_SUITES, TLS_VERSION_ORDER, TLS_VERSIONS } from './go-tls-names.js';
import type { ConfigProblem } from './problems.js';

/**
 * Reads a web config file in exporter-toolkit's format (tls_server_config,
 * http_server_config, basic_auth_users) and checks everything a server start would: the
 * keys, the bcrypt hashes, the certificates and the key (loaded into a TLS context). Paths
 * inside are relative to the file, as in exporter-toolkit.
 */

/** http_server_config.headers: exporter-toolkit allows these, some with fixed values only. */
const ALLOWED_HEADERS: Readonly<Record<string, readonly string[] | null>> = {
  'Strict-Transport-Security': null,
  'X-Content-Type-Options': ['nosniff'],
  'X-Frame-Options': ['deny', 'sameorigin'],
  'X-XSS-Protection': null,
  'Content-Security-Policy': null,
};

/** $2a$, $2b$ or $2y$, a two-digit cost, 53 characters of salt and hash. */
const BCRYPT_HASH = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

const enumOf = (names: readonly string[], what: string) =>
  z.string().refine((value) => names.includes(value), { error: (issue) => `unknown ${what} "${String(issue.input)}"; one of ${names.join(', ')}` });

const webConfigSchema = z.strictObject({
  tls_server_config: z
    .strictObject({
      cert_file: z.string().optional(),
      key_file: z.string().optional(),
      cert: z.string().optional(),
      key: z.string().optional(),
      client_auth_type: z.enum(CLIENT_AUTH_TYPES, { error: `must be one of ${CLIENT_AUTH_TYPES.join(', ')}` }).optional(),
      client_ca_file: z.string().optional(),
      client_ca: z.string().optional(),
      min_version: enumOf(Object.keys(TLS_VERSIONS), 'TLS version').optional(),
      max_version: enumOf(Object.keys(TLS_VERSIONS), 'TLS version').optional(),
      cipher_suites: z.array(enumOf(Object.keys(CIPHER_SUITES), 'cipher suite')).optional(),
      curve_preferences: z.array(enumOf(Object.keys(CURVES), 'curve')).optional(),
      prefer_server_cipher_suites: z.boolean().optional(),
      client_allowed_sans: z.array(z.string().min(1)).optional(),
    })
    .optional(),
  http_server_config: z
    .strictObject({
      /** Accepted for compatibility; tonwatch serves HTTP/1.1. */
      http2: z.boolean().optional(),
      headers: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  basic_auth_users: z.record(z.string().min(1), z.string()).nullish(),
});

type WebConfigFile = z.output<typeof webConfigSchema>;

export interface WebConfigLoad {
  readonly web: WebConfig | null;
  readonly problems: readonly ConfigProblem[];
}

/** Reads and checks the web config at `file` (absolute). Problems name the file and the key. */
export async function loadWebConfig(file: string, readFile: (path: string) => Promise<string>): Promise<WebConfigLoad> {
  const problems: ConfigProblem[] = [];
  const at = (key: string) => `web config ${file}${key === '' ? '' : ` ${key}`}`;
  let text: string;
  try {
    text = await readFile(file);
  } catch (cause) {
    return { web: null, problems: [{ path: at(''), message: `cannot read: ${messageOf(cause)}` }] };
  }
  let document: unknown;
  try {
    document = parse(text) ?? {};
  } catch (cause) {
    return { web: null, problems: [{ path: at(''), message: `not valid YAML: ${messageOf(cause)}` }] };
  }
  const parsed = webConfigSchema.safeParse(document);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path.map(String).join('.');
      const message = issue.code === 'unrecognized_keys' ? `unknown key${issue.keys.length === 1 ? '' : 's'}: ${issue.keys.join(', ')}` : issue.message;
      problems.push({ path: at(key), message });
    }
    return { web: null, problems };
  }
  const value = parsed.data;
  const users = checkUsers(value, (key, message) => problems.push({ path: at(key), message }));
  const headers = checkHeaders(value, (key, message) => problems.push({ path: at(key), message }));
  const read = await readTls(value, dirname(file), readFile, (key, message) => problems.push({ path: at(key), message }));
  const tls = read?.tls ?? null;
  const files = [file, ...(read?.files ?? [])];
  if (problems.length > 0) return { web: null, problems };
  return { web: { file, files, tls, users, headers }, problems };
}

type Report = (key: string, message: string) => void;

function checkUsers(value: WebConfigFile, report: Report): Record<string, string> {
  const users: Record<string, string> = {};
  for (const [user, hash] of Object.entries(value.basic_auth_users ?? {})) {
    // The hash itself is never repeated in a message: it is a secret too.
    if (user.includes(':')) report(`basic_auth_users.${user}`, 'a user name cannot contain ":" (basic auth splits on it)');
    else if (!BCRYPT_HASH.test(hash))
      report(`basic_auth_users.${user}`, 'not a bcrypt hash ($2a$, $2b$ or $2y$, cost 04-31); make one with `htpasswd -nBC 10 "" | tr -d \':\\n\'`');
    else users[user] = hash;
  }
  return users;
}

function checkHeaders(value: WebConfigFile, report: Report): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, headerValue] of Object.entries(value.http_server_config?.headers ?? {})) {
    const allowed = Object.hasOwn(ALLOWED_HEADERS, name) ? ALLOWED_HEADERS[name] : undefined;
    if (allowed === undefined)
      report(`http_server_config.headers.${name}`, `this header cannot be configured; one of ${Object.keys(ALLOWED_HEADERS).join(', ')}`);
    else if (allowed !== null && !allowed.includes(headerValue)) report(`http_server_config.headers.${name}`, `must be one of ${allowed.join(', ')}`);
    else if (/[\r\n]/.test(headerValue)) report(`http_server_config.headers.${name}`, 'a header value cannot contain a line break');
    else headers[name] = headerValue;
  }
  return headers;
}

async function readTls(
  value: WebConfigFile,
  dir: string,
  readFile: (path: string) => Promise<string>,
  report: Report,
): Promise<{ tls: TlsSettings; files: string[] } | null> {
  /** The certificate files it names (watched for changes like the web config itself). */
  const files: string[] = [];
  const tls = value.tls_server_config;
  if (tls === undefined) return null;
  const enabled = [tls.cert_file, tls.cert, tls.key_file, tls.key, tls.client_ca_file, tls.client_ca, tls.client_auth_type].some(
    (v) => v !== undefined && v !== '',
  );
  if (!enabled) return null;

  /** A PEM from `<name>_file` (relative to the web config) or inline `<name>`. */
  const pem = async (
    fileKey: 'cert_file' | 'key_file' | 'client_ca_file',
    inlineKey: 'cert' | 'key' | 'client_ca',
    required: boolean,
  ): Promise<Buffer | undefined> => {
    const path = tls[fileKey];
    const inline = tls[inlineKey];
    if (path !== undefined && path !== '' && inline !== undefined && inline !== '') {
      report(`tls_server_config.${fileKey}`, `give ${fileKey} or ${inlineKey}, not both`);
      return undefined;
    }
    if (path !== undefined && path !== '') {
      const full = isAbsolute(path) ? path : resolve(dir, path);
      files.push(full);
      try {
        return Buffer.from(await readFile(full));
      } catch (cause) {
        report(`tls_server_config.${fileKey}`, `cannot read ${full}: ${messageOf(cause)}`);
        return undefined;
      }
    }
    if (inline !== undefined && inline !== '') return Buffer.from(inline);
    if (required) report(`tls_server_config.${fileKey}`, `missing: TLS needs ${fileKey} (or ${inlineKey})`);
    return undefined;
  };
  const cert = await pem('cert_file', 'cert', true);
  const key = await pem('key_file', 'key', true);
  const clientCa = await pem('client_ca_file', 'client_ca', false);
  const clientAuth = tls.client_auth_type ?? 'NoClientCert';
  if (clientCa !== undefined && clientAuth === 'NoClientCert') {
    report('tls_server_config.client_auth_type', 'client CAs are given but client_auth_type is NoClientCert: say how client certificates are checked');
  }
  if (tls.client_allowed_sans !== undefined && clientAuth !== 'RequireAnyClientCert' && clientAuth !== 'RequireAndVerifyClientCert') {
    report('tls_server_config.client_allowed_sans', 'needs client_auth_type RequireAnyClientCert or RequireAndVerifyClientCert');
  }
  const minVersion = TLS_VERSIONS[tls.min_version ?? 'TLS12'] ?? 'TLSv1.2';
  const maxVersion = TLS_VERSIONS[tls.max_version ?? 'TLS13'] ?? 'TLSv1.3';
  if (TLS_VERSION_ORDER.indexOf(minVersion) > TLS_VERSION_ORDER.indexOf(maxVersion))
    report('tls_server_config.min_version', `is above max_version (${tls.max_version ?? 'TLS13'})`);
  const settings: TlsSettings = {
    cert: cert ?? Buffer.alloc(0),
    key: key ?? Buffer.alloc(0),
    clientCa,
    clientAuth,
    minVersion,
    maxVersion,
    ciphers:
      tls.cipher_suites === undefined || tls.cipher_suites.length === 0
        ? undefined
        : `${TLS13_SUITES}:${tls.cipher_suites.map((c) => CIPHER_SUITES[c]).join(':')}`,
    ecdhCurve: tls.curve_preferences === undefined || tls.curve_preferences.length === 0 ? undefined : tls.curve_preferences.map((c) => CURVES[c]).join(':'),
    honorCipherOrder: tls.prefer_server_cipher_suites ?? true,
    clientAllowedSans: tls.client_allowed_sans,
  };
  if (cert !== undefined && key !== undefined) {
    // What the server would do with them: a key that does not match, or a PEM that is not one, fails here.
    try {
      createSecureContext(secureContextOptions(settings));
    } catch (cause) {
      report('tls_server_config', `the certificate, key or client CA cannot be used: ${messageOf(cause)}`);
    }
  }
  return { tls: settings, files };
}

/** The web config as check-config prints it: every setting, no secret (hashes and inline keys redacted). */
export function describeWebConfig(web: WebConfig): Record<string, unknown> {
  const tls = web.tls;
  return {
    file: web.file,
    tls:
      tls === null
        ? 'off (plain HTTP)'
        : {
            client_auth_type: tls.clientAuth,
            client_ca: tls.clientCa === undefined ? 'none' : 'given',
            min_version: tls.minVersion,
            max_version: tls.maxVersion,
            ...(tls.ciphers === undefined ? {} : { ciphers: tls.ciphers }),
            ...(tls.ecdhCurve === undefined ? {} : { curves: tls.ecdhCurve }),
            ...(tls.clientAllowedSans === undefined ? {} : { client_allowed_sans: tls.clientAllowedSans }),
            files: web.files.slice(1),
          },
    basic_auth_users: Object.fromEntries(Object.keys(web.users).map((user) => [user, '<redacted>'])),
    headers: web.headers,
  };
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
