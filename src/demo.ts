import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { DEFAULT_SIMULATOR_OPTIONS, createSimulator, type Simulator } from './sim/simulator.js';
import { userFriendly } from './ton/address.js';

/**
 * `tonwatch demo`: the simulator on loopback and a config file for a daemon that watches
 * it, with a sample watchlist taken from the simulated accounts (all kinds, one per
 * threshold) and one address the simulated indexer does not know.
 */

export interface DemoSetup {
  readonly simulator: Simulator;
  readonly simulatorUrl: string;
  readonly configPath: string;
}

export async function startDemoSimulator(options: { now: () => number; simulatorPort: number; daemonPort: number }): Promise<DemoSetup> {
  const simulator = createSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, now: options.now, rps: 10, seed: 7 });
  const address = await simulator.start('127.0.0.1', options.simulatorPort);
  const simulatorUrl = `http://127.0.0.1:${address.port}`;
  const dir = await mkdtemp(join(tmpdir(), 'tonwatch-demo-'));
  const accounts = simulator.wallets.accounts();
  const watchlist = accounts.slice(0, 12).map((account, i) => ({
    // A mix of address forms, as a real watchlist has.
    address: i % 3 === 0 ? account.raw.toLowerCase() : userFriendly(account.address, { bounceable: i % 3 === 1, testnet: false }),
    name: `demo-${account.kind}-${i}`,
    labels: { team: i % 2 === 0 ? 'payments' : 'treasury' },
    ...(i % 4 === 0 ? { minBalanceTons: 1000 } : {}),
  }));
  watchlist.push({ address: '0:' + 'AB'.repeat(32), name: 'demo-unknown', labels: { team: 'payments' } });
  const config = {
    listen: { host: '127.0.0.1', port: options.daemonPort },
    upstreams: [{ name: 'simulator', url: simulatorUrl, rps: 8, timeoutMs: 3000 }],
    schedule: { queueSizes: '*/2 * * * * *', wallets: '*/10 * * * * *' },
    retry: { attempts: 2, baseDelayMs: 200, maxDelayMs: 2000 },
    snapshot: { file: join(dir, 'snapshot.json'), maxAgeSeconds: 60 },
    watchlist,
    log: { level: 'info' },
  };
  const configPath = join(dir, 'tonwatch.yml');
  await writeFile(configPath, `# Written by tonwatch demo; a working example config.\n${stringify(config)}`);
  return { simulator, simulatorUrl, configPath };
}
