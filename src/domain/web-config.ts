import type { SecureContextOptions } from 'node:tls';

/**
 * The web config: TLS, basic auth and extra response headers for every endpoint, read from
 * a file in the format of Prometheus' exporter-toolkit (the file node_exporter takes with
 * --web.config.file), so an operator reuses what they already wrote. config/web-config.ts
 * reads and checks it; serve/ applies it.
 */

/** exporter-toolkit's client_auth_type values, with Go's crypto/tls meanings. */
export const CLIENT_AUTH_TYPES = [
  'NoClientCert',
  'RequestClientCert',
  'RequireAnyClientCert',
  'VerifyClientCertIfGiven',
  'RequireAndVerifyClientCert',
] as const;
export type ClientAuthType = (typeof CLIENT_AUTH_TYPES)[number];

export type TlsVersionName = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

/** TLS settings, certificates already read (a reload swaps them whole). */
export interface TlsSettings {
  /** PEM certificate chain (cert_file or inline cert). */
  readonly cert: Buffer;
  /** PEM private key (key_file or inline key). Never printed. */
  readonly key: Buffer;
  /** PEM client CA certificates (client_ca_file or inline client_ca), when given. */
  readonly clientCa: Buffer | undefined;
  readonly clientAuth: ClientAuthType;
  /** Default TLSv1.2, as exporter-toolkit. */
  readonly minVersion: TlsVersionName;
  /** Default TLSv1.3. */
  readonly maxVersion: TlsVersionName;
  /** OpenSSL cipher list for TLS 1.2 and below (from Go's names); undefined: Node's default. */
  readonly ciphers: string | undefined;
  /** OpenSSL curve list (from Go's names); undefined: Node's default. */
  readonly ecdhCurve: string | undefined;
  readonly honorCipherOrder: boolean;
  /** A client certificate must carry one of these SANs (DNS, IP, email or URI); undefined: any. */
  readonly clientAllowedSans: readonly string[] | undefined;
}

export interface WebConfig {
  /** Absolute path of the web config file. */
  readonly file: string;
  /** Every file it depends on (itself, certificates, keys, CAs): a change to any reloads. */
  readonly files: readonly string[];
  /** null: plain HTTP (basic auth and headers still apply). */
  readonly tls: TlsSettings | null;
  /** basic_auth_users: user → bcrypt hash. Empty: no authentication. */
  readonly users: Readonly<Record<string, string>>;
  /** http_server_config.headers, added to every response. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Node's TLS context options for the settings (the server adds requestCert/rejectUnauthorized). */
export function secureContextOptions(tls: TlsSettings): SecureContextOptions {
  return {
    cert: tls.cert,
    key: tls.key,
    ...(tls.clientCa === undefined ? {} : { ca: tls.clientCa }),
    minVersion: tls.minVersion,
    maxVersion: tls.maxVersion,
    ...(tls.ciphers === undefined ? {} : { ciphers: tls.ciphers }),
    ...(tls.ecdhCurve === undefined ? {} : { ecdhCurve: tls.ecdhCurve }),
    honorCipherOrder: tls.honorCipherOrder,
  };
}
