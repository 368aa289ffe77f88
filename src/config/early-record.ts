import { createHash } from 'node:crypto';
import type { Config } from '../domain/config.js';
import { referencedNames } from './interpolate.js';

/**
 * What a start needs of its config to answer getOutMsgQueueSizes before most of its code is
 * loaded (start-early.ts): where it listens, the response headers and connection limits of
 * its web face, and its queue sizes' file. The last start keeps it in the start cache,
 * under `key`: a digest of all a config is made of that could change these (the config
 * file's bytes, the environment variables it refers to, --web.config.file, the web config
 * files' bytes). A start whose inputs give another key does not use it.
 *
 * None is kept for a config that serves with TLS or basic auth (a password check and a
 * certificate belong to the daemon's full start), in a cluster (the queue sizes come from
 * the replica that leads), or without a config file.
 */
export interface EarlyRecord {
  readonly key: string;
  /** The web config file and the files it names, in the order their bytes enter the key. */
  readonly webFiles: readonly string[];
  readonly host: string;
  readonly port: number;
  /** The web config's http_server_config.headers; {} without one. */
  readonly headers: Readonly<Record<string, string>>;
  readonly maxConnections: number;
  readonly sendTimeoutMs: number;
  /** snapshot.file, absolute. */
  readonly snapshotFile: string;
  readonly maxAgeSeconds: number;
}

/** What the key is made of, read afresh by each start. */
export interface EarlyInputs {
  /** The config file's bytes. */
  readonly configBytes: Uint8Array;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** --web.config.file, resolved against the working directory; null when not given. */
  readonly webOverride: string | null;
  /** The bytes of each of the record's webFiles; null for one that cannot be read. */
  readonly webBytes: readonly (Uint8Array | null)[];
}

export function earlyKey(inputs: EarlyInputs): string {
  const hash = createHash('sha256');
  // Each part after its length: no two different lists of parts hash the same bytes.
  const part = (value: string | Uint8Array): void => {
    hash.update(`${typeof value === 'string' ? Buffer.byteLength(value) : value.length}:`);
    hash.update(value);
  };
  part(inputs.configBytes);
  for (const name of referencedNames(Buffer.from(inputs.configBytes).toString('utf8'))) {
    const value = inputs.env[name];
    part(name);
    part(value === undefined ? 'unset' : `=${value}`);
  }
  part(inputs.webOverride ?? '');
  for (const bytes of inputs.webBytes) part(bytes === null ? 'unreadable' : createHash('sha256').update(bytes).digest('base64'));
  return hash.digest('base64');
}

/**
 * The record for a loaded config and the inputs it was made from (`webBytes`: of each of
 * `config.web.files`); null when a start cannot answer early with it (above).
 */
export function earlyRecordOf(config: Config, inputs: EarlyInputs): EarlyRecord | null {
  const { web } = config;
  if (config.configPath === null || !answersEarly(config)) return null;
  return {
    key: earlyKey(inputs),
    webFiles: web?.files ?? [],
    host: config.listen.host,
    port: config.listen.port,
    headers: web?.headers ?? {},
    maxConnections: config.listen.maxConnections,
    sendTimeoutMs: config.listen.sendTimeoutSeconds * 1000,
    snapshotFile: config.snapshot.file,
    maxAgeSeconds: config.snapshot.maxAgeSeconds,
  };
}

/** A record as read back from the cache file, checked field by field; null for anything else. */
export function readEarlyRecord(value: unknown): EarlyRecord | null {
  if (typeof value !== 'object' || value === null) return null;
  const r = value as Record<string, unknown>;
  const count = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0;
  const strings = (v: unknown): boolean => Array.isArray(v) && v.every((item) => typeof item === 'string');
  const headers = r['headers'];
  const ok =
    typeof r['key'] === 'string' &&
    strings(r['webFiles']) &&
    typeof r['host'] === 'string' &&
    count(r['port']) &&
    typeof headers === 'object' &&
    headers !== null &&
    Object.values(headers).every((v) => typeof v === 'string') &&
    count(r['maxConnections']) &&
    count(r['sendTimeoutMs']) &&
    typeof r['snapshotFile'] === 'string' &&
    r['snapshotFile'] !== '' &&
    typeof r['maxAgeSeconds'] === 'number' &&
    r['maxAgeSeconds'] > 0;
  return ok ? (value as EarlyRecord) : null;
}

/** Whether a daemon of `config` serves as the record says: same address, plain HTTP, no users. */
export function fitsRecord(record: Pick<EarlyRecord, 'host' | 'port'>, config: Config): boolean {
  return config.listen.host === record.host && config.listen.port === record.port && answersEarly(config);
}

/** Whether a daemon of `config` may be answered for before it is loaded: plain HTTP, no users, one process. */
function answersEarly(config: Config): boolean {
  return config.cluster === null && !config.web?.tls && Object.keys(config.web?.users ?? {}).length === 0;
}
