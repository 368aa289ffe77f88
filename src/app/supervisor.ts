import type { DestinationStream, Logger } from 'pino';
import type { Config } from '../domain/config.js';
import { createConfigSource, type ConfigSource } from '../config/source.js';
import { CONFIG_PIECES } from '../features/index.js';
import type { ConfigOverrides, LoadedConfig } from '../config/load.js';
import { ConfigError, formatProblems } from '../config/problems.js';
import { createDaemon, type Daemon } from './daemon.js';
import { EXIT_CONFIG, EXIT_FAILURE, EXIT_OK } from './exit-codes.js';
import { createLogger } from '../log/logger.js';
import { VERSION } from './version.js';

/** What the process gives the commands; only main.ts builds this. */
export interface ProcessDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdout: DestinationStream & { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** The process clock (domain/clock.ts): monotonic ms. */
  readonly now: () => number;
  /** Wall minus process time, ms (domain/clock.ts); 0 when absent. */
  readonly wallOffset?: () => number;
  readonly nodeVersion: string;
  /** Resolves with the signal name on SIGTERM/SIGINT. */
  readonly terminated: Promise<string>;
  /** Registers the SIGHUP handler. */
  readonly onReloadSignal: (handler: () => void) => void;
  /** Called once the daemon has started up and loaded its persisted snapshot (DaemonDeps.startedUp). */
  readonly startedUp?: () => void;
}

/** The config, or every problem printed and null. */
export async function loadOrReport(explicitPath: string | undefined, deps: ProcessDeps, overrides: ConfigOverrides = {}): Promise<LoadedConfig | null> {
  return loadFrom(await createConfigSource(explicitPath, overrides, { env: deps.env, cwd: deps.cwd, pieces: CONFIG_PIECES }), deps);
}

async function loadFrom(source: ConfigSource, deps: Pick<ProcessDeps, 'stderr'>): Promise<LoadedConfig | null> {
  try {
    return await source.load();
  } catch (err) {
    if (err instanceof ConfigError) {
      deps.stderr.write(`${err.message}\n`);
      return null;
    }
    throw err;
  }
}

/**
 * Runs the daemon until SIGTERM/SIGINT: loads the config, starts the daemon on it, then
 * supervises it (reloads on SIGHUP and file changes, stops on a signal).
 */
export async function runDaemon(
  explicitPath: string | undefined,
  deps: ProcessDeps,
  onStarted?: (daemon: Daemon, url: string, logger: Logger) => void,
  overrides: ConfigOverrides = {},
): Promise<number> {
  const source = await createConfigSource(explicitPath, overrides, { env: deps.env, cwd: deps.cwd, pieces: CONFIG_PIECES });
  const loaded = await loadFrom(source, deps);
  if (!loaded) return EXIT_CONFIG;
  const { config } = loaded;
  const logger = createLogger(config.log.level, deps.stdout);
  for (const warning of loaded.warnings) logger.warn({ config: config.configPath }, warning);
  const daemon = createDaemon({
    config,
    logger,
    now: deps.now,
    wallOffset: deps.wallOffset,
    version: VERSION,
    nodeVersion: deps.nodeVersion,
    startedUp: deps.startedUp,
  });
  let address;
  try {
    address = await daemon.start();
  } catch (err) {
    logger.fatal({ err, listen: config.listen }, 'cannot start');
    await daemon.stop();
    return EXIT_FAILURE;
  }
  const url = `${config.web?.tls ? 'https' : 'http'}://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  logger.info(
    {
      url,
      version: VERSION,
      upstreams: config.upstreams.map((u) => u.name),
      watchlist: config.watchlist.length,
      webConfig: config.web === null ? null : { file: config.web.file, tls: config.web.tls !== null, basicAuth: Object.keys(config.web.users).length > 0 },
    },
    'tonwatch started',
  );
  onStarted?.(daemon, url, logger);
  const signal = await supervise({ source, daemon, logger, terminated: deps.terminated, onReloadSignal: deps.onReloadSignal });
  logger.info({ signal }, 'stopping');
  await daemon.stop();
  logger.info('stopped');
  logger.flush();
  return EXIT_OK;
}

interface SupervisorDeps {
  readonly source: ConfigSource;
  readonly daemon: Pick<Daemon, 'config' | 'applyConfig' | 'reloadRefused'>;
  readonly logger: Logger;
  readonly terminated: Promise<string>;
  readonly onReloadSignal: (handler: () => void) => void;
}

/**
 * Reloads the daemon's config on SIGHUP and when a file it was read from changes, one
 * reload at a time: a bad new config is refused and logged, and the old one stays. Resolves
 * with the signal that asked to stop, once the reload under way (if any) is done.
 */
export async function supervise(deps: SupervisorDeps): Promise<string> {
  const { source, daemon, logger } = deps;
  let reloading = Promise.resolve();
  const reload = (why: string): void => {
    reloading = reloading.then(async () => {
      try {
        const next = await source.load();
        for (const warning of next.warnings) logger.warn(warning);
        await daemon.applyConfig(next.config);
        watch(next.config);
      } catch (err) {
        daemon.reloadRefused();
        if (err instanceof ConfigError)
          logger.error({ why, problems: err.problems }, `new configuration refused; keeping the old one:\n${formatProblems(err.problems)}`);
        else logger.error({ err, why }, 'reload failed; keeping the old configuration');
      }
    });
  };
  const watch = (config: Config): void => source.watch(config, () => reload('file change'), logger);
  watch(daemon.config());
  deps.onReloadSignal(() => reload('SIGHUP'));
  const signal = await deps.terminated;
  source.close();
  await reloading;
  return signal;
}
