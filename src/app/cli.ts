import { parseArgs } from 'node:util';
import { describeConfig } from '../config/load.js';
import { CONFIG_PIECES } from '../features/index.js';
import { loadOrReport, runDaemon, type ProcessDeps } from './supervisor.js';
import { EXIT_CONFIG, EXIT_FAILURE, EXIT_OK } from './exit-codes.js';
import { isScenario, SCENARIOS } from '../sim/scenarios.js';
import { DEFAULT_SIMULATOR_OPTIONS } from '../sim/options.js';
import { VERSION } from './version.js';
import { DEFAULT_LISTEN_PORT, DEFAULT_SIMULATOR_PORT } from '../domain/config.js';
import { OPTIONS } from './cli-options.js';

const HELP = `tonwatch ${VERSION}: Prometheus exporter and caching query service for TON

Usage:
  tonwatch [--config FILE] [--web.config.file FILE]
                                           run the daemon
  tonwatch check-config [--config FILE] [--web.config.file FILE]
                                           validate and print the effective config (secrets redacted)
  tonwatch healthcheck [--config FILE]     exit 0 when the daemon of that config answers /healthz, else 1
  tonwatch simulate [options]              run the simulated toncenter-compatible upstream
  tonwatch demo [--port N] [--liteserver]  simulator + daemon in one process, with a sample watchlist
                                           (daemon on N, default ${DEFAULT_LISTEN_PORT}; simulator on N+1;
                                           --liteserver: polled through its liteserver on N+2, HTTP as failover)
  tonwatch --help | --version

Config: --config FILE, else $TONWATCH_CONFIG, else ./tonwatch.yml if present, else built-in
defaults (public toncenter mainnet, empty watchlist).
--web.config.file FILE: TLS, basic auth and headers in Prometheus exporter-toolkit's format
(overrides listen.webConfigFile).

simulate options:
  --host H            listen address (default 127.0.0.1)
  --port N            listen port (default ${DEFAULT_SIMULATOR_PORT})
  --scenario NAME     ${SCENARIOS.join(' | ')} (default calm)
  --seed N            deterministic under a seed (default 1)
  --style S           python (plural v2 path, @extra in result) | cpp (singular path,
                      @extra at top level) | both (default python)
  --rps N             requests per second before 429 (default unlimited)
  --accounts N        simulated accounts (default ${DEFAULT_SIMULATOR_OPTIONS.accounts})
  --block-ms N        one block per shard every N ms (default 1000)
  --max-url-bytes N   walletStates URLs longer than this get 414 (default 8192)
  --testnet           user-friendly addresses get the testnet flag
  --lag N             hold this upstream's masterchain tip N blocks behind (default 0)
  --indexer-lag N     hold its v3 indexer N blocks behind its own tip (default 0)
  --liteserver-port N also serve the chain as a liteserver (ADNL over TCP) on port N
                      (0: any free port); its public key is printed at start
  --liteserver-without-queue-sizes
                      the liteserver refuses getOutMsgQueueSizes, as a node before 2024.04

Exit codes: 0 clean stop, 78 bad config, 1 anything else.
`;

class UsageError extends Error {}

function intOption(value: string | undefined, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, got "${value}"`);
  return n;
}

/** Parses the command line and runs the command; resolves with the exit code. */
export async function runCli(argv: readonly string[], deps: ProcessDeps): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
    if (values.help) return print(deps, HELP);
    if (values.version) return print(deps, `${VERSION}\n`);
    const [command = 'run', ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
    switch (command) {
      case 'run':
        return await runDaemon(values.config, deps, undefined, { webConfigFile: values['web.config.file'] });
      case 'check-config': {
        const loaded = await loadOrReport(values.config, deps, { webConfigFile: values['web.config.file'] });
        if (!loaded) return EXIT_CONFIG;
        for (const warning of loaded.warnings) deps.stderr.write(`warning: ${warning}\n`);
        return print(deps, await describeConfig(loaded.config, CONFIG_PIECES));
      }
      case 'healthcheck': {
        // Docker reads 0 healthy, 1 unhealthy (2 is reserved): a bad config is unhealthy too.
        const loaded = await loadOrReport(values.config, deps, { webConfigFile: values['web.config.file'] });
        if (!loaded) return EXIT_FAILURE;
        const { checkHealth } = await import('./healthcheck.js');
        const result = await checkHealth(loaded.config);
        deps.stdout.write(`${result.healthy ? 'healthy' : 'unhealthy'}: ${result.detail}\n`);
        return result.healthy ? EXIT_OK : EXIT_FAILURE;
      }
      case 'simulate':
        return await simulate(values, deps);
      case 'demo':
        return await demo(intOption(values.port, 'port', DEFAULT_LISTEN_PORT), values.liteserver === true, deps);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      deps.stderr.write(`tonwatch: ${(err as Error).message}\nRun 'tonwatch --help' for usage.\n`);
      return EXIT_FAILURE;
    }
    throw err;
  }
}

function print(deps: ProcessDeps, text: string): number {
  deps.stdout.write(text);
  return EXIT_OK;
}

async function simulate(values: { [K in keyof typeof OPTIONS]?: string | boolean | undefined }, deps: ProcessDeps): Promise<number> {
  const scenario = (values.scenario as string | undefined) ?? 'calm';
  if (!isScenario(scenario)) throw new UsageError(`--scenario must be one of ${SCENARIOS.join(', ')}`);
  const style = (values.style as string | undefined) ?? 'python';
  if (style !== 'python' && style !== 'cpp' && style !== 'both') throw new UsageError('--style must be python, cpp or both');
  const rps = values.rps === undefined ? null : intOption(values.rps as string, 'rps', 1, 1);
  const { createSimulator } = await import('../sim/simulator.js');
  const simulator = createSimulator({
    ...DEFAULT_SIMULATOR_OPTIONS,
    now: deps.now,
    scenario,
    style,
    rps,
    seed: intOption(values.seed as string | undefined, 'seed', 1),
    accounts: intOption(values.accounts as string | undefined, 'accounts', DEFAULT_SIMULATOR_OPTIONS.accounts),
    blockMs: intOption(values['block-ms'] as string | undefined, 'block-ms', 1000),
    maxUrlBytes: intOption(values['max-url-bytes'] as string | undefined, 'max-url-bytes', 8192, 64),
    testnet: values.testnet === true,
    lagBlocks: intOption(values.lag as string | undefined, 'lag', 0),
    indexerLagBlocks: intOption(values['indexer-lag'] as string | undefined, 'indexer-lag', 0),
    liteserverPort: values['liteserver-port'] === undefined ? null : intOption(values['liteserver-port'] as string, 'liteserver-port', 0),
    liteserverWithoutQueueSizes: values['liteserver-without-queue-sizes'] === true,
    validatorRoundSeconds: intOption(
      values['validator-round-seconds'] as string | undefined,
      'validator-round-seconds',
      DEFAULT_SIMULATOR_OPTIONS.validatorRoundSeconds,
      8,
    ),
  });
  const host = (values.host as string | undefined) ?? '127.0.0.1';
  const address = await simulator.start(host, intOption(values.port as string | undefined, 'port', DEFAULT_SIMULATOR_PORT));
  deps.stdout.write(`tonwatch simulator listening on http://${host}:${address.port} (scenario ${scenario}, style ${style}, seed ${values.seed ?? 1})\n`);
  const lite = simulator.liteserverAddress();
  if (lite !== null && simulator.liteserver !== null) {
    deps.stdout.write(`tonwatch simulator liteserver on ${host}:${lite.port}, public key ${simulator.liteserver.publicKey}\n`);
    deps.stdout.write(
      `  upstreams: [{ name: sim-lite, kind: liteserver, liteservers: [{ host: ${host}, port: ${lite.port}, publicKey: ` +
        `"${simulator.liteserver.publicKey}" }] }]\n`,
    );
  }
  await deps.terminated;
  await simulator.stop();
  return EXIT_OK;
}

async function demo(port: number, liteserver: boolean, deps: ProcessDeps): Promise<number> {
  const { startDemoSimulator } = await import('./demo.js');
  const setup = await startDemoSimulator({
    now: deps.now,
    simulatorPort: port === 0 ? 0 : port + 1,
    daemonPort: port,
    liteserverPort: liteserver ? (port === 0 ? 0 : port + 2) : null,
  });
  const through = setup.liteserverAddress === null ? '' : ` (polled through its liteserver at ${setup.liteserverAddress}, HTTP as failover)`;
  deps.stderr.write(`tonwatch demo: simulator at ${setup.simulatorUrl}${through}, config ${setup.configPath}\n`);
  try {
    return await runDaemon(setup.configPath, deps, (_daemon, url) => {
      deps.stderr.write(
        [
          '',
          `  tonwatch demo is running. Open:`,
          `    ${url}/                              status page (queue pressure, history, wallets, upstreams)`,
          `    ${url}/metrics                       Prometheus metrics`,
          `    ${url}/api/v2/getOutMsgQueueSizes    queue sizes (toncenter's v2 format)`,
          `    ${url}/api/v3/walletStates?address=… wallet states`,
          `    ${setup.simulatorUrl}/_sim/state     the simulated network`,
          `  Ctrl-C stops it.`,
          '',
        ].join('\n'),
      );
    });
  } finally {
    await setup.simulator.stop();
  }
}
