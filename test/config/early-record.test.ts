import { describe, expect, it } from 'vitest';
import { earlyKey, earlyRecordOf, fitsRecord, readEarlyRecord, type EarlyInputs } from '../../src/config/early-record.js';
import { encodeCache, nothingKept, readEarly } from '../../src/config/start-cache-file.js';
import type { Config } from '../../src/domain/config.js';
import type { TlsSettings } from '../../src/domain/web-config.js';
import { configFrom } from '../helpers/config.js';

const TEXT = 'listen: { host: 127.0.0.1, port: ${PORT:-9000} }\nupstreams: [ { name: a, url: "https://x/api", apiKey: "${KEY}" } ]\n';
const inputs = (over: Partial<EarlyInputs> = {}): EarlyInputs => ({
  configBytes: Buffer.from(TEXT),
  env: { KEY: 'k1', HOME: '/home/u' },
  webOverride: null,
  webBytes: [],
  ...over,
});

describe('the early record: what a start answers with before its code is loaded', () => {
  it('is keyed on the config bytes, the variables the config refers to, --web.config.file and the web files, and nothing else', () => {
    const key = earlyKey(inputs());
    expect(earlyKey(inputs())).toBe(key);
    // A variable the config does not name changes nothing.
    expect(earlyKey(inputs({ env: { KEY: 'k1', HOME: '/root', OTHER: 'x' } }))).toBe(key);
    const changed: Partial<EarlyInputs>[] = [
      { configBytes: Buffer.from(TEXT.replace('127.0.0.1', '127.0.0.2')) },
      { configBytes: Buffer.from(`${TEXT}# a comment\n`) },
      { env: { KEY: 'k2' } },
      { env: { KEY: 'k1', PORT: '9000' } },
      { env: { KEY: 'k1', PORT: '' } },
      { env: {} },
      { webOverride: '/etc/tonwatch/web.yml' },
      { webBytes: [Buffer.from('http_server_config: {}\n')] },
      { webBytes: [null] },
    ];
    const keys = changed.map((over) => earlyKey(inputs(over)));
    for (const other of keys) expect(other).not.toBe(key);
    expect(new Set(keys).size).toBe(keys.length);
    // Parts are told apart by their lengths: moving a byte from one part to the next changes the key.
    expect(earlyKey(inputs({ webBytes: [Buffer.from('ab'), Buffer.from('c')] }))).not.toBe(
      earlyKey(inputs({ webBytes: [Buffer.from('a'), Buffer.from('bc')] })),
    );
  });

  it("is made of the loaded config's address, headers, limits and snapshot; none with TLS, basic auth, a cluster or no config file", async () => {
    const config = await configFrom(
      'listen: { host: 127.0.0.1, port: 9100, maxConnections: 7, sendTimeoutSeconds: 3 }\nsnapshot: { file: ./data/s.json, maxAgeSeconds: 90 }\n',
    );
    const web = { file: '/cfg/web.yml', files: ['/cfg/web.yml'], tls: null, users: {}, headers: { 'x-frame-options': 'DENY' } };
    const record = earlyRecordOf({ ...config, web }, inputs({ webBytes: [Buffer.from('w')] }));
    expect(record).toEqual({
      key: earlyKey(inputs({ webBytes: [Buffer.from('w')] })),
      webFiles: ['/cfg/web.yml'],
      host: '127.0.0.1',
      port: 9100,
      headers: { 'x-frame-options': 'DENY' },
      maxConnections: 7,
      sendTimeoutMs: 3000,
      snapshotFile: '/cfg/data/s.json',
      maxAgeSeconds: 90,
    });
    expect(readEarlyRecord(structuredClone(record))).toEqual(record);
    expect(earlyRecordOf(config, inputs())?.webFiles).toEqual([]);
    const refused: Config[] = [
      { ...config, web: { ...web, tls: {} as TlsSettings } },
      { ...config, web: { ...web, users: { prometheus: '$2y$10$x' } } },
      { ...config, cluster: { redis: 'redis://127.0.0.1:6379', name: 'tw', memberTtlSeconds: 15 } },
      { ...config, configPath: null },
    ];
    for (const other of refused) expect(earlyRecordOf(other, inputs())).toBeNull();
    expect(fitsRecord({ host: '127.0.0.1', port: 9100 }, config)).toBe(true);
    expect(fitsRecord({ host: '127.0.0.1', port: 9101 }, config)).toBe(false);
    expect(fitsRecord({ host: '0.0.0.0', port: 9100 }, config)).toBe(false);
    for (const other of refused.slice(0, 3)) expect(fitsRecord({ host: '127.0.0.1', port: 9100 }, other)).toBe(false);
  });

  it("is read back from the start cache's header alone, for its own config and version only; a malformed one is none", async () => {
    const config = await configFrom('listen: { host: 127.0.0.1, port: 9100 }\n');
    const early = earlyRecordOf(config, inputs());
    const frames: Uint8Array[] = [];
    for await (const frame of encodeCache('/cfg/tonwatch.yml', '1.2.3', { ...nothingKept(), early })) frames.push(frame);
    const bytes = Buffer.concat(frames);
    expect(readEarly(bytes, '/cfg/tonwatch.yml', '1.2.3')).toEqual(early);
    expect(readEarly(bytes, '/cfg/other.yml', '1.2.3')).toBeNull();
    expect(readEarly(bytes, '/cfg/tonwatch.yml', '1.2.4')).toBeNull();
    expect(() => readEarly(Buffer.from('not a cache'), '/cfg/tonwatch.yml', '1.2.3')).toThrow();
    const good = early as NonNullable<typeof early>;
    for (const bad of [
      null,
      'x',
      { ...good, port: -1 },
      { ...good, port: '9100' },
      { ...good, headers: { a: 1 } },
      { ...good, webFiles: [1] },
      { ...good, snapshotFile: '' },
      { ...good, maxAgeSeconds: 0 },
      { ...good, key: undefined },
    ]) {
      expect(readEarlyRecord(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});
