import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { DEMO_CONFIG } from './assets.js';
import { DEFAULT_SIMULATOR_OPTIONS, createSimulator, type Simulator } from '../sim/simulator.js';

/**
 * `tonwatch demo`: the simulator on loopback and the docker-compose demo config
 * (`dashboards/tonwatch/demo.yml`: simulated accounts of every kind in a mix of address
 * forms, thresholds, one address the simulated indexer does not know) pointed at it.
 */

/** The simulator seed whose accounts the demo config's watchlist (assets.ts, DEMO_CONFIG) names. */
export const DEMO_SEED = 7;

export interface DemoSetup {
  readonly simulator: Simulator;
  readonly simulatorUrl: string;
  /** `host:port` of the simulator's liteserver when the demo polls through it, else null. */
  readonly liteserverAddress: string | null;
  readonly configPath: string;
}

/**
 * With `liteserverPort` (not null), the simulator also serves its chain as a liteserver and
 * the config polls through it first, with the HTTP face as failover.
 */
export async function startDemoSimulator(options: {
  now: () => number;
  simulatorPort: number;
  daemonPort: number;
  liteserverPort?: number | null;
}): Promise<DemoSetup> {
  const liteserverPort = options.liteserverPort ?? null;
  const simulator = createSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, now: options.now, rps: 10, seed: DEMO_SEED, liteserverPort });
  const address = await simulator.start('127.0.0.1', options.simulatorPort);
  const simulatorUrl = `http://127.0.0.1:${address.port}`;
  const dir = await mkdtemp(join(tmpdir(), 'tonwatch-demo-'));
  const config = parse(await readFile(DEMO_CONFIG, 'utf8')) as Record<string, unknown> & { upstreams: { url: string }[] };
  config['listen'] = { host: '127.0.0.1', port: options.daemonPort };
  config['snapshot'] = { file: join(dir, 'snapshot.json'), maxAgeSeconds: 60 };
  for (const upstream of config.upstreams) upstream.url = simulatorUrl;
  const lite = simulator.liteserverAddress();
  if (lite !== null && simulator.liteserver !== null) {
    // rps 200: a wallet poll is one getAccountState per address.
    const liteUpstream = {
      name: 'simulator-lite',
      kind: 'liteserver',
      rps: 200,
      timeoutMs: 3000,
      liteservers: [{ host: '127.0.0.1', port: lite.port, publicKey: simulator.liteserver.publicKey }],
    };
    (config.upstreams as unknown[]).unshift(liteUpstream);
  }
  const configPath = join(dir, 'tonwatch.yml');
  await writeFile(configPath, `# Written by tonwatch demo from dashboards/tonwatch/demo.yml; a working example config.\n${stringify(config)}`);
  return { simulator, simulatorUrl, liteserverAddress: lite === null ? null : `127.0.0.1:${lite.port}`, configPath };
}
