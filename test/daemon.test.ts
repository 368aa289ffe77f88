import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDaemon, type Daemon } from '../src/app/daemon.js';
import type { Config } from '../src/domain/config.js';
import { runDaemon, type ProcessDeps } from '../src/app/supervisor.js';
import { EXIT_CONFIG, EXIT_OK } from '../src/app/exit-codes.js';
import { configFrom } from './helpers/config.js';
import { createLogSink } from './helpers/log.js';
import { eventually } from './helpers/process.js';
import { startSim, type RunningSim } from './helpers/sim.js';

/**
 * The daemon's lifecycle in this process: createDaemon's start, reload and stop, and
 * runDaemon's config loading, file-change and SIGHUP reloads and termination, against the
 * in-process simulator on 127.0.0.1.
 */

const text = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
};
const metricsOf = async (url: string) => (await text(`${url}/metrics`)).body;

describe('createDaemon: start, reload, stop', () => {
  let sim: RunningSim;
  let dir: string;
  let daemon: Daemon | undefined;
  beforeEach(async () => {
    sim = await startSim();
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-daemon-'));
  });
  afterEach(async () => {
    await daemon?.stop();
    await sim.stop();
  });

  const daemonWith = (config: Config, logger: Logger, startedUp?: () => void): Daemon =>
    createDaemon({ config, logger, now: () => Date.now(), version: 't', nodeVersion: 'v20', startedUp });
  const configWith = (
    upstreamName: string,
    snapshotFile: string,
    watchlist: readonly string[] = [],
    { queueSchedule = '* * * * * *', walletSchedule = '*/2 * * * * *', maxAgeSeconds = 60 } = {},
  ): Promise<Config> =>
    configFrom(`
listen: { host: 127.0.0.1, port: 0 }
upstreams: [ { name: ${upstreamName}, url: "${sim.url}", rps: 100, timeoutMs: 2000 } ]
schedule: { queueSizes: "${queueSchedule}", wallets: "${walletSchedule}" }
retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 50 }
snapshot: { file: "${join(dir, snapshotFile)}", maxAgeSeconds: ${maxAgeSeconds} }
watchlist: [${watchlist.map((a) => `{ address: "${a}" }`).join(', ')}]
log: { level: debug }
`);

  /** Runs a daemon on snapshot.json until it is ready (both parts polled and persisted), then stops it. */
  const persistFirst = async (watchlist: readonly string[]): Promise<void> => {
    const first = daemonWith(await configWith('sim', 'snapshot.json', watchlist), createLogSink().logger);
    const firstUrl = `http://127.0.0.1:${(await first.start()).port}`;
    await eventually(async () => ((await text(`${firstUrl}/readyz`)).status === 200 ? true : undefined), 10_000, 'ready');
    await first.stop();
  };

  it('serves what it polled once started, and is ready when both snapshots are fresh', async () => {
    const log = createLogSink();
    const watchlist = sim.sim.wallets
      .accounts()
      .slice(0, 3)
      .map((a) => a.raw);
    daemon = daemonWith(await configWith('sim', 'snapshot.json', watchlist), log.logger);
    const address = await daemon.start();
    const url = `http://127.0.0.1:${address.port}`;
    await eventually(async () => ((await text(`${url}/readyz`)).status === 200 ? true : undefined), 10_000, 'ready');
    const v2 = JSON.parse((await text(`${url}/api/v2/getOutMsgQueueSizes`)).body);
    expect(v2.result.shards.map((s: { size: number }) => s.size)).toEqual(sim.sim.chain.queues().map((q) => q.size));
    const v3 = JSON.parse((await text(`${url}/api/v3/walletStates?address=${watchlist.join(',')}`)).body);
    expect(v3.wallets.map((w: { address: string }) => w.address)).toEqual(watchlist);
    expect(await metricsOf(url)).toMatch(/tonwatch_up\{query="wallets"\} 1/);
    // The scrape reading it is in flight.
    expect(await metricsOf(url)).toMatch(/^tonwatch_metrics_requests_in_flight 1$/m);
  });

  it('applies a new config whole: new upstream, new snapshot file; and counts a refused reload', async () => {
    const log = createLogSink();
    daemon = daemonWith(await configWith('sim', 'first.json'), log.logger);
    const url = `http://127.0.0.1:${(await daemon.start()).port}`;
    await eventually(async () => ((await text(`${url}/api/v2/getOutMsgQueueSizes`)).status === 200 ? true : undefined), 10_000, 'first poll');

    daemon.reloadRefused();
    expect(await metricsOf(url)).toMatch(/^tonwatch_config_last_reload_successful 0$/m);

    const next = await configWith('sim2', 'second.json');
    await daemon.applyConfig(next);
    expect(daemon.config()).toBe(next);
    expect(await metricsOf(url)).toMatch(/^tonwatch_config_last_reload_successful 1$/m);
    // The new upstream is polled, under its own name.
    await eventually(async () => (/upstream="sim2",query="queue_sizes",code="200"/.test(await metricsOf(url)) ? true : undefined), 10_000, 'a poll of sim2');
    // What was held is written to the new snapshot file at once.
    const written = await eventually(async () => JSON.parse(await readFile(join(dir, 'second.json'), 'utf8')) as { part: string });
    expect(written.part).toBe('queue_sizes');
    expect(log.lines().some((l) => l['msg'] === 'configuration reloaded')).toBe(true);
  });

  it('starts on its persisted snapshot: queue sizes first, then the wallets file, each logged', async () => {
    const watchlist = sim.sim.wallets
      .accounts()
      .slice(0, 5)
      .map((a) => a.raw);
    await persistFirst(watchlist);
    await sim.stop();
    // Restarted with the upstream gone: everything served comes from the files.
    const log = createLogSink();
    daemon = daemonWith(await configWith('sim', 'snapshot.json', watchlist), log.logger);
    const url = `http://127.0.0.1:${(await daemon.start()).port}`;
    expect((await text(`${url}/api/v2/getOutMsgQueueSizes`)).status).toBe(200);
    const v3 = await eventually(async () => {
      const answer = await text(`${url}/api/v3/walletStates?address=${watchlist.join(',')}`);
      return answer.status === 200 ? answer : undefined;
    });
    expect(JSON.parse(v3.body).wallets).toHaveLength(5);
    // The wallets file's log line may come a moment after its first answer.
    const messages = await eventually(async () => {
      const said = log.lines().map((l) => l['msg']);
      return said.includes('loaded the persisted snapshot (wallet states)') ? said : undefined;
    });
    expect(messages).toContain('loaded the persisted snapshot (queue sizes)');
    sim = await startSim();
  });

  it('polls at start on fresh persisted data too, and a reload polls at once; the composition root hears once that start-up is over', async () => {
    const watchlist = sim.sim.wallets
      .accounts()
      .slice(0, 3)
      .map((a) => a.raw);
    await persistFirst(watchlist);
    const v2Asked = () => sim.sim.http.requestsByPath()['/api/v2/getOutMsgQueueSizes'] ?? 0;
    const walletsAsked = () => sim.sim.http.requestsByPath()['/api/v3/walletStates'] ?? 0;
    const before = { v2: v2Asked(), wallets: walletsAsked() };

    // Both due once a year and once an hour: only the polls at start can ask for them.
    const config = await configWith('sim', 'snapshot.json', watchlist, { queueSchedule: '0 0 0 1 1 *', walletSchedule: '0 0 * * * *', maxAgeSeconds: 7200 });
    let startedUp = 0;
    daemon = daemonWith(config, createLogSink().logger, () => (startedUp += 1));
    const url = `http://127.0.0.1:${(await daemon.start()).port}`;
    expect((await text(`${url}/api/v2/getOutMsgQueueSizes`)).status).toBe(200);
    await eventually(async () => (v2Asked() > before.v2 && walletsAsked() > before.wallets ? true : undefined), 10_000, 'the polls at start');
    // A second after the persisted wallets are in (main.ts tunes the collector then).
    await eventually(async () => (startedUp === 1 ? true : undefined), 10_000, 'start-up over');

    const polled = v2Asked();
    await daemon.applyConfig(config);
    await eventually(async () => (v2Asked() === polled + 1 ? true : undefined), 10_000, 'the poll after a reload');
    expect(startedUp).toBe(1);
  });

  it('stops: persists, closes the server, and a second stop is the same stop', async () => {
    const log = createLogSink();
    daemon = daemonWith(await configWith('sim', 'snapshot.json'), log.logger);
    const url = `http://127.0.0.1:${(await daemon.start()).port}`;
    await eventually(async () => ((await text(`${url}/api/v2/getOutMsgQueueSizes`)).status === 200 ? true : undefined), 10_000, 'first poll');
    const stopping = daemon.stop();
    expect(daemon.stop()).toBe(stopping);
    await stopping;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    const file = JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8')) as { queueSizes: { upstream: string } };
    expect(file.queueSizes.upstream).toBe('sim');
    expect(log.lines().filter((l) => l['msg'] === 'shutdown step failed')).toEqual([]);
  });
});

describe('runDaemon: the daemon as the CLI runs it', () => {
  let sim: RunningSim;
  let dir: string;
  beforeEach(async () => {
    sim = await startSim();
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-run-'));
  });
  afterEach(async () => {
    await sim.stop();
  });

  /** ProcessDeps with captured output, a termination the test triggers, and the SIGHUP handler kept. */
  function processDeps() {
    let out = '';
    let err = '';
    let terminate: (signal: string) => void = () => undefined;
    let onHup: (() => void) | undefined;
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        out += chunk.toString();
        callback();
      },
    });
    const deps: ProcessDeps = {
      env: {},
      cwd: dir,
      stdout: Object.assign(stdout, { write: stdout.write.bind(stdout) }),
      stderr: { write: (t: string) => (err += t) },
      now: () => Date.now(),
      nodeVersion: 'v20',
      terminated: new Promise<string>((resolve) => (terminate = resolve)),
      onReloadSignal: (handler) => (onHup = handler),
    };
    return { deps, out: () => out, err: () => err, terminate: (signal: string) => terminate(signal), hangUp: () => onHup?.() };
  }
  const configText = (name: string) => `
listen: { host: 127.0.0.1, port: 0 }
upstreams: [ { name: ${name}, url: "${sim.url}", rps: 100, timeoutMs: 2000 } ]
schedule: { queueSizes: "* * * * * *" }
snapshot: { file: ./snapshot.json }
log: { level: info }
`;
  const reloads = (out: string) => out.match(/configuration reloaded/g)?.length ?? 0;

  it('runs until terminated, reloading on file changes and SIGHUP and refusing a bad config', async () => {
    const file = join(dir, 'tonwatch.yml');
    await writeFile(file, configText('sim'));
    const p = processDeps();
    let url = '';
    const exit = runDaemon(file, p.deps, (_daemon, bound) => (url = bound));
    await eventually(async () => (url !== '' ? true : undefined), 10_000, 'started');
    await eventually(async () => ((await text(`${url}/api/v2/getOutMsgQueueSizes`)).status === 200 ? true : undefined), 10_000, 'first poll');

    await writeFile(file, 'upstreams: [ { name: sim, url: "not a url" } ]\n');
    await eventually(async () => (/new configuration refused/.test(p.out()) ? true : undefined), 10_000, 'a refused reload');
    expect(p.out()).toMatch(/upstreams\.0\.url/);
    expect((await text(`${url}/api/v2/getOutMsgQueueSizes`)).status).toBe(200);

    await writeFile(file, configText('renamed'));
    await eventually(async () => (reloads(p.out()) >= 1 ? true : undefined), 10_000, 'a reload on file change');
    const afterFileChange = reloads(p.out());
    p.hangUp();
    await eventually(async () => (reloads(p.out()) > afterFileChange ? true : undefined), 10_000, 'a reload on SIGHUP');

    p.terminate('SIGTERM');
    expect(await exit).toBe(EXIT_OK);
    expect(p.out()).toMatch(/"msg":"stopped"/);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it("reloads when a liteserver upstream's global config file changes, and refuses a broken one", async () => {
    const key = Buffer.alloc(32, 9).toString('base64');
    const globalConfig = (port: number) => JSON.stringify({ liteservers: [{ ip: 2130706433, port, id: { '@type': 'pub.ed25519', key } }] });
    await writeFile(join(dir, 'global.config.json'), globalConfig(1));
    const file = join(dir, 'tonwatch.yml');
    await writeFile(
      file,
      configText('sim').replace('upstreams: [', 'upstreams: [ { name: lite, kind: liteserver, globalConfig: ./global.config.json, timeoutMs: 200 },'),
    );
    const p = processDeps();
    let daemon: Daemon | undefined;
    const exit = runDaemon(file, p.deps, (d) => (daemon = d));
    await eventually(async () => (daemon !== undefined ? true : undefined), 10_000, 'started');
    const liteservers = () => {
      const lite = daemon?.config().upstreams[0];
      return lite?.kind === 'liteserver' ? lite.liteservers : [];
    };
    expect(liteservers()).toEqual([{ host: '127.0.0.1', port: 1, publicKey: key }]);
    await writeFile(join(dir, 'global.config.json'), globalConfig(2));
    await eventually(async () => (liteservers()[0]?.port === 2 ? true : undefined), 10_000, 'a reload on a global config change');
    await writeFile(join(dir, 'global.config.json'), '{"liteservers": []}');
    await eventually(async () => (/new configuration refused/.test(p.out()) ? true : undefined), 10_000, 'a refused reload');
    expect(liteservers()[0]?.port).toBe(2);
    p.terminate('SIGTERM');
    expect(await exit).toBe(EXIT_OK);
  });

  it('exits 78 listing every problem when the config is bad at start', async () => {
    const file = join(dir, 'tonwatch.yml');
    await writeFile(file, 'listen: { port: -1 }\nbogus: 1\n');
    const p = processDeps();
    expect(await runDaemon(file, p.deps)).toBe(EXIT_CONFIG);
    expect(p.err()).toMatch(/listen\.port/);
    expect(p.err()).toMatch(/unknown key: bogus/);
  });
});
