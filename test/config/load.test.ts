import { describe, expect, it } from 'vitest';
import { CONFIG_PIECES } from '../../src/features/index.js';
import { describeConfig, loadConfig, resolveConfigPath, type ConfigLoadDeps } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/problems.js';
import { configFrom, problemsOf } from '../helpers/config.js';

const A = 'EQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlY1zB';
const A_RAW = '0:29023DEB1272494B112310754AAC7DD0660B68FCC40C3A693C97BD9ACDA5E563';

describe('loadConfig', () => {
  it('applies the documented defaults to an empty file', async () => {
    const config = await configFrom('');
    expect(config.listen).toEqual({
      host: '0.0.0.0',
      port: 10384,
      maxMetricsRequests: 40,
      maxConnections: 1000,
      tlsHandshakeTimeoutSeconds: 10,
      allowedHosts: [],
      sendTimeoutSeconds: 60,
    });
    expect(config.web).toBeNull();
    expect(config.upstreams).toEqual([{ kind: 'http', name: 'toncenter', url: 'https://toncenter.com', rps: 1, timeoutMs: 10_000 }]);
    expect(config.schedule).toEqual({ queueSizes: '*/5 * * * * *', wallets: '*/30 * * * * *', chainHeads: '*/15 * * * * *', validators: '0 * * * * *' });
    expect(config.walletBatchSize).toBe(1000);
    expect(config.lagCheck).toEqual({ everySeconds: 60, maxLagBlocks: 10 });
    expect(config.snapshot).toEqual({ file: '/cfg/data/snapshot.json', maxAgeSeconds: 300 });
    expect(config.testnet).toBe(false);
    expect(config.watchlist).toEqual([]);
    expect(config.log.level).toBe('info');
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads JSON as well as YAML', async () => {
    const config = await configFrom('{"listen": {"port": 9999}, "testnet": true}');
    expect(config.listen.port).toBe(9999);
    expect(config.testnet).toBe(true);
  });

  it('replaces ${NAME} from the environment, typed when it is the whole value', async () => {
    const config = await configFrom(
      'listen: { port: "${PORT}" }\nupstreams:\n  - { name: main, url: "https://${HOST}/x", apiKey: "${KEY}" }\nsnapshot: { file: "${DIR:-/var/lib/tonwatch}/s.json" }\nlog: { level: "$${literal}" }\n',
      {},
      { PORT: '9200', HOST: 'example.org', KEY: 'sekret' },
    ).catch((e: unknown) => e);
    // "$${literal}" is the escape for a literal "${literal}", which is not a log level.
    expect(config).toBeInstanceOf(ConfigError);
    expect((config as ConfigError).problems.map((p) => p.path)).toEqual(['log.level']);
    const ok = await configFrom(
      'listen: { port: "${PORT}" }\nupstreams:\n  - { name: main, url: "https://${HOST}/x", apiKey: "${KEY}" }\nsnapshot: { file: "${DIR:-/var/lib/tonwatch}/s.json" }\n',
      {},
      { PORT: '9200', HOST: 'example.org', KEY: 'sekret' },
    );
    expect(ok.listen.port).toBe(9200);
    expect(ok.upstreams[0]).toMatchObject({ url: 'https://example.org/x', apiKey: 'sekret' });
    expect(ok.snapshot.file).toBe('/var/lib/tonwatch/s.json');
  });

  it('reports every problem at once, each with its path', async () => {
    const problems = await problemsOf(`
listen: { port: 70000, hots: x }
upstreams:
  - { name: "Bad Name", url: "ftp://x", rps: 0, apiKey: "\${MISSING_KEY}" }
  - { name: ok, url: "https://a.example" }
  - { name: ok, url: "https://b.example" }
schedule: { queueSizes: "every minute" }
walletBatchSize: 2000
watchlist:
  - { address: "nope", labels: { address: x, "bad-label": y } }
surprise: 1
`);
    const paths = problems.map((p) => p.path).sort();
    expect(paths).toEqual(
      expect.arrayContaining([
        '',
        'listen',
        'listen.port',
        'upstreams.0.name',
        'upstreams.0.url',
        'upstreams.0.rps',
        'upstreams.0.apiKey',
        'schedule.queueSizes',
        'walletBatchSize',
        'watchlist.0.address',
      ]),
    );
    expect(problems.find((p) => p.path === '')?.message).toMatch(/unknown key: surprise/);
    expect(problems.find((p) => p.path === 'listen')?.message).toMatch(/unknown key: hots/);
    expect(problems.find((p) => p.path === 'upstreams.0.apiKey')?.message).toMatch(/MISSING_KEY is not set/);
    expect(problems.some((p) => p.path.startsWith('watchlist.0.labels') && /tonwatch itself uses/.test(p.message))).toBe(true);
    expect(problems.some((p) => p.path.startsWith('watchlist.0.labels') && /not a valid Prometheus label name/.test(p.message))).toBe(true);
  });

  it('reports duplicate upstream names', async () => {
    const problems = await problemsOf('upstreams:\n  - { name: a, url: "https://a.example" }\n  - { name: a, url: "https://b.example" }\n');
    expect(problems).toEqual([{ path: 'upstreams.1.name', message: expect.stringMatching(/duplicate/) }]);
  });

  it('reports broken YAML with its line', async () => {
    const problems = await problemsOf('listen:\n  port: [1,\n');
    expect(problems[0]?.path).toMatch(/^line \d+$/);
  });

  it('merges watchlist entries and files, folding duplicates with a warning', async () => {
    const deps: ConfigLoadDeps = {
      env: {},
      cwd: '/cfg',
      pieces: CONFIG_PIECES,
      fileExists: async () => true,
      readFile: async (path) => {
        if (path === '/cfg/tonwatch.yml')
          return `watchlist:\n  - { address: "${A}", name: hot-1, labels: { team: payments }, minBalanceTons: 100 }\nwatchlistFiles: [lists/w.txt]\n`;
        if (path === '/cfg/lists/w.txt')
          return `# exchange wallets\n${A_RAW.toLowerCase()}, duplicate-name\n\nUQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlYwEE\n0:${'1'.repeat(64)},cold-1  # comment\n`;
        throw new Error('ENOENT');
      },
    };
    const { config, warnings } = await loadConfig('/cfg/tonwatch.yml', deps);
    expect(config.watchlist.map((w) => [w.raw, w.name, w.minBalanceTons])).toEqual([
      [A_RAW, 'hot-1', 100],
      [`0:${'1'.repeat(64)}`, 'cold-1', undefined],
    ]);
    expect(config.watchlist[0]?.labels).toEqual({ team: 'payments' });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/w\.txt:2: duplicate of watchlist\.0/);
  });

  it('reads a watchlist file of 200,000 lines (more than a spread into push() takes)', async () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => `0:${i.toString(16).toUpperCase().padStart(64, '0')}`);
    const config = await configFrom('watchlistFiles: [big.txt]\n', { '/cfg/big.txt': lines.join('\n') });
    expect(config.watchlist).toHaveLength(200_000);
    expect(config.watchlist[199_999]?.raw).toBe(lines[199_999]);
  });

  it('reports invalid watchlist file lines with file and line, and unreadable files', async () => {
    const problems = await problemsOf('watchlistFiles: [w.txt, missing.txt]\n', {
      '/cfg/w.txt': `${A}\nnot-an-address,x\nEQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlY1zC\n`,
    });
    expect(problems.map((p) => p.path)).toEqual(['/cfg/w.txt:2', '/cfg/w.txt:3', 'watchlistFiles.1']);
    expect(problems[1]?.message).toMatch(/checksum/i);
  });

  it('prints the effective config with secrets redacted', async () => {
    const config = await configFrom('upstreams:\n  - { name: a, url: "https://user:pw@a.example/", apiKey: "${K}" }\n', {}, { K: 'top-secret-key' });
    const text = await describeConfig(config, CONFIG_PIECES);
    expect(text).not.toContain('top-secret-key');
    expect(text).not.toContain('pw@');
    expect(text).toContain('apiKey: <redacted>');
  });
});

describe('lagCheck', () => {
  it('takes intervals node-cron can step by, and 0 to turn the check off', async () => {
    for (const everySeconds of [0, 1, 15, 30, 60, 120, 600, 3600])
      expect((await configFrom(`lagCheck: { everySeconds: ${everySeconds} }`)).lagCheck.everySeconds).toBe(everySeconds);
    for (const everySeconds of [7, 90, 4000]) {
      expect([...new Set((await problemsOf(`lagCheck: { everySeconds: ${everySeconds} }`)).map((p) => p.path))]).toEqual(['lagCheck.everySeconds']);
    }
  });
});

describe('the web config in the config', () => {
  const HASH = '$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi';
  const WEB = `basic_auth_users:\n  prometheus: "${HASH}"\nhttp_server_config:\n  headers: { X-Frame-Options: deny }\n`;

  it('reads listen.webConfigFile relative to the config file, and check-config shows it with the hash redacted', async () => {
    const config = await configFrom('listen: { webConfigFile: web/web.yml }', { '/cfg/web/web.yml': WEB });
    expect(config.web).toMatchObject({ file: '/cfg/web/web.yml', tls: null, users: { prometheus: HASH }, headers: { 'X-Frame-Options': 'deny' } });
    const text = await describeConfig(config, CONFIG_PIECES);
    expect(text).toContain('prometheus: <redacted>');
    expect(text).not.toContain(HASH);
  });

  it('--web.config.file overrides the key, relative to the working directory', async () => {
    const files: Record<string, string> = { '/cfg/tonwatch.yml': 'listen: { webConfigFile: nope.yml }', '/elsewhere/web.yml': WEB };
    const { config } = await loadConfig(
      '/cfg/tonwatch.yml',
      {
        env: {},
        cwd: '/elsewhere',
        pieces: CONFIG_PIECES,
        readFile: async (path) => files[path] ?? Promise.reject(new Error(`ENOENT: ${path}`)),
        fileExists: async (path) => path in files,
      },
      { webConfigFile: 'web.yml' },
    );
    expect(config.web?.file).toBe('/elsewhere/web.yml');
  });

  it('a bad web config is a config problem, listed with the others', async () => {
    const problems = await problemsOf('listen: { webConfigFile: web.yml }\nwalletBatchSize: 0', {
      '/cfg/web.yml': 'basic_auth_users: { a: not-a-hash }\nsurprise: 1',
    });
    const paths = problems.map((p) => p.path);
    expect(paths).toEqual(['walletBatchSize', 'web config /cfg/web.yml']);
    const missing = await problemsOf('listen: { webConfigFile: web.yml }');
    expect(missing).toEqual([{ path: 'web config /cfg/web.yml', message: expect.stringMatching(/cannot read/) as unknown }]);
  });
});

describe('resolveConfigPath', () => {
  const deps = (env: Record<string, string>, exists: boolean): ConfigLoadDeps => ({
    env,
    cwd: '/work',
    pieces: CONFIG_PIECES,
    readFile: async () => '',
    fileExists: async () => exists,
  });
  it('prefers --config, then $TONWATCH_CONFIG, then ./tonwatch.yml, then defaults', async () => {
    expect(await resolveConfigPath('a.yml', deps({ TONWATCH_CONFIG: '/etc/b.yml' }, true))).toBe('/work/a.yml');
    expect(await resolveConfigPath(undefined, deps({ TONWATCH_CONFIG: '/etc/b.yml' }, true))).toBe('/etc/b.yml');
    expect(await resolveConfigPath(undefined, deps({}, true))).toBe('/work/tonwatch.yml');
    expect(await resolveConfigPath(undefined, deps({}, false))).toBeNull();
  });
});

describe('liteserver upstreams', () => {
  const KEY = 'n4VDnSCUuSpjnCyUk9e3QOOd6o0ItSWYbTnW3Wnn8wk=';
  const GLOBAL = JSON.stringify({
    '@type': 'config.global',
    dht: {},
    liteservers: [
      { ip: 84478511, port: 19949, id: { '@type': 'pub.ed25519', key: KEY } },
      { ip: -1185526007, port: 4924, id: { '@type': 'pub.ed25519', key: KEY } },
    ],
    validator: {},
  });

  it('reads inline liteservers and a global config file (signed-int ips), mixed with HTTP in failover order', async () => {
    const config = await configFrom(
      `upstreams:
  - { name: own-node, kind: liteserver, liteservers: [{ host: 10.0.0.5, port: 43679, publicKey: "${KEY.replace(/\+/g, '-').replace(/\//g, '_')}" }], rps: 50 }
  - { name: toncenter, url: "https://toncenter.com" }
  - { name: public, kind: liteserver, globalConfig: ./global.config.json, timeoutMs: 3000 }
`,
      { '/cfg/global.config.json': GLOBAL },
    );
    expect(config.upstreams.map((u) => [u.name, u.kind])).toEqual([
      ['own-node', 'liteserver'],
      ['toncenter', 'http'],
      ['public', 'liteserver'],
    ]);
    // URL-safe base64 is accepted and kept in the standard form.
    expect(config.upstreams[0]).toMatchObject({ liteservers: [{ host: '10.0.0.5', port: 43679, publicKey: KEY }], rps: 50, timeoutMs: 10_000 });
    expect(config.upstreams[2]).toMatchObject({
      globalConfig: '/cfg/global.config.json',
      liteservers: [
        { host: '5.9.10.47', port: 19949, publicKey: KEY },
        { host: '185.86.79.9', port: 4924, publicKey: KEY },
      ],
    });
    expect(await describeConfig(config, CONFIG_PIECES)).toContain('host: 185.86.79.9');
  });

  it('lists every problem: a key of the wrong size, both or neither source, an unreadable or malformed global config', async () => {
    const problems = await problemsOf(
      `upstreams:
  - { name: a, kind: liteserver, liteservers: [{ host: h, port: 1, publicKey: "AAAA" }] }
  - { name: b, kind: liteserver }
  - { name: c, kind: liteserver, globalConfig: g.json, liteservers: [{ host: h, port: 1, publicKey: "${KEY}" }] }
  - { name: d, kind: ftp, url: "https://x" }
`,
    );
    expect(problems.map((p) => p.path)).toEqual([
      'upstreams.0.liteservers.0.publicKey',
      'upstreams.1.liteservers',
      'upstreams.2.liteservers',
      'upstreams.3.kind',
    ]);
    expect(problems[0]?.message).toMatch(/32-byte ed25519 public key/);
    const fileProblems = await problemsOf(
      `upstreams:
  - { name: a, kind: liteserver, globalConfig: missing.json }
  - { name: b, kind: liteserver, globalConfig: bad.json }
  - { name: c, kind: liteserver, globalConfig: nokey.json }
`,
      {
        '/cfg/bad.json': '{not json',
        '/cfg/nokey.json': JSON.stringify({ liteservers: [{ ip: 1, port: 2, id: { '@type': 'pub.ed25519', key: 'short' } }] }),
      },
    );
    expect(fileProblems.map((p) => p.path)).toEqual(['upstreams.0.globalConfig', 'upstreams.1.globalConfig', 'upstreams.2.globalConfig']);
    expect(fileProblems[0]?.message).toContain('cannot read /cfg/missing.json');
    expect(fileProblems[1]?.message).toContain('is not JSON');
    expect(fileProblems[2]?.message).toMatch(/liteservers\.0\.id\.key/);
  });
});
