import { access, readFile } from 'node:fs/promises';
import type { DestinationStream, Logger } from 'pino';
import { loadConfig, resolveConfigPath, type ConfigLoadDeps, type ConfigOverrides } from './config/load.js';
import type { Config } from './domain/config.js';
import { ConfigError, formatProblems } from './config/problems.js';
import { watchFiles } from './config/watch.js';
import { createDaemon, type Daemon } from './daemon.js';
import { createLogger } from './logger.js';
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

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_CONFIG = 78;

export function configLoadDeps(deps: ProcessDeps): ConfigLoadDeps {
  return {
    env: deps.env,
    cwd: deps.cwd,
    readFile: (path) => readFile(path, 'utf8'),
    readBytes: (path) => readFile(path),
    fileExists: (path) =>
      access(path).then(
        () => true,
        () => false,
      ),
  };
}

/** Loads the config, or prints every problem and returns null. */
export async function loadOrReport(
  explicitPath: string | undefined,
  deps: ProcessDeps,
  overrides: ConfigOverrides = {},
): Promise<{ config: Config; warnings: readonly string[] } | null> {
  const loadDeps = configLoadDeps(deps);
  try {
    return await loadConfig(await resolveConfigPath(explicitPath, loadDeps), loadDeps, overrides);
  } catch (err) {
    if (err instanceof ConfigError) {
      deps.stderr.write(`${err.message}\n`);
      return null;
    }
    throw err;
  }
}

/**
 * Runs the daemon until SIGTERM/SIGINT. Config files and SIGHUP reload it; a bad new config
 * is refused and logged, the old one stays.
 */
export async function runDaemon(
  explicitPath: string | undefined,
  deps: ProcessDeps,
  onStarted?: (daemon: Daemon, url: string, logger: Logger) => void,
  overrides: ConfigOverrides = {},
): Promise<number> {
  const loaded = await loadOrReport(explicitPath, deps, overrides);
  if (!loaded) return EXIT_CONFIG;
  const logger = createLogger(loaded.config.log.level, deps.stdout);
  for (const warning of loaded.warnings) logger.warn({ config: loaded.config.configPath }, warning);
  const daemon = createDaemon({
    config: loaded.config,
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
    logger.fatal({ err, listen: loaded.config.listen }, 'cannot start');
    await daemon.stop();
    return EXIT_FAILURE;
  }
  const url = `${loaded.config.web?.tls ? 'https' : 'http'}://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  logger.info(
    {
      url,
      version: VERSION,
      upstreams: loaded.config.upstreams.map((u) => u.name),
      watchlist: loaded.config.watchlist.length,
      webConfig:
        loaded.config.web === null
          ? null
          : { file: loaded.config.web.file, tls: loaded.config.web.tls !== null, basicAuth: Object.keys(loaded.config.web.users).length > 0 },
    },
    'tonwatch started',
  );
  onStarted?.(daemon, url, logger);

  const watchedFiles = (config: Config) => [
    ...(config.configPath ? [config.configPath] : []),
    ...config.watchlistFiles,
    ...(config.web?.files ?? []),
    ...config.upstreams.flatMap((u) => (u.kind === 'liteserver' && u.globalConfig !== undefined ? [u.globalConfig] : [])),
  ];
  let watcher = watchFiles(watchedFiles(loaded.config), () => void reload('file change'), logger);
  let reloading = Promise.resolve();
  const reload = (why: string): Promise<void> =>
    (reloading = reloading.then(async () => {
      const loadDeps = configLoadDeps(deps);
      try {
        const next = await loadConfig(daemon.config().configPath, loadDeps, overrides);
        for (const warning of next.warnings) logger.warn(warning);
        await daemon.applyConfig(next.config);
        watcher.close();
        watcher = watchFiles(watchedFiles(next.config), () => void reload('file change'), logger);
      } catch (err) {
        daemon.reloadRefused();
        if (err instanceof ConfigError)
          logger.error({ why, problems: err.problems }, `new configuration refused; keeping the old one:\n${formatProblems(err.problems)}`);
        else logger.error({ err, why }, 'reload failed; keeping the old configuration');
      }
    }));
  deps.onReloadSignal(() => void reload('SIGHUP'));

  const signal = await deps.terminated;
  logger.info({ signal }, 'stopping');
  watcher.close();
  await daemon.stop();
  logger.info('stopped');
  logger.flush();
  return EXIT_OK;
}
