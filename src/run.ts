import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { DestinationStream, Logger } from 'pino';
import { loadConfig, resolveConfigPath, type ConfigLoadDeps, type ConfigOverrides } from './config/load.js';
import { NO_START_CACHE, openStartCache, type StartCache } from './config/start-cache.js';
import { earlyRecordOf, fitsRecord } from './config/early-record.js';
import type { EarlyServer } from './serve/early-server.js';
import { startCacheDir } from './config/start-cache-path.js';
import type { Config } from './domain/config.js';
import { ConfigError, formatProblems } from './config/problems.js';
import { watchFiles } from './config/watch.js';
import { createDaemon, type Daemon } from './daemon.js';
import { dropReadsAhead, readAhead, readWhole } from './snapshot/atomic-file.js';
import { EXIT_CONFIG, EXIT_FAILURE, EXIT_OK } from './exit-codes.js';
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
  /** The server start-early.ts listens with, answering while the code loads; the daemon takes it over. */
  readonly early?: EarlyServer | null;
}

export function configLoadDeps(deps: ProcessDeps): ConfigLoadDeps {
  return {
    env: deps.env,
    cwd: deps.cwd,
    readFile: async (path) => (await readWhole(path)).toString('utf8'),
    readBytes: readWhole,
    fileExists: (path) =>
      access(path).then(
        () => true,
        () => false,
      ),
  };
}

/** The config (and the start cache it was read with), or every problem printed and null. */
export async function loadOrReport(
  explicitPath: string | undefined,
  deps: ProcessDeps,
  overrides: ConfigOverrides = {},
  withCache?: (configPath: string) => Promise<StartCache>,
): Promise<{ config: Config; warnings: readonly string[]; startCache: StartCache } | null> {
  const loadDeps = configLoadDeps(deps);
  try {
    const path = await resolveConfigPath(explicitPath, loadDeps);
    const startCache = path === null || withCache === undefined ? NO_START_CACHE : await withCache(path);
    return { ...(await loadConfig(path, { ...loadDeps, startCache }, overrides)), startCache };
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
  const cacheDir = startCacheDir(deps.env, deps.cwd);
  let cacheProblem: string | null = null;
  const loaded = await loadOrReport(explicitPath, deps, overrides, async (path) => {
    if (cacheDir === null) return NO_START_CACHE;
    const opened = await openStartCache(cacheDir, path, VERSION);
    cacheProblem = opened.problem;
    // The snapshot files the last start read are read while this one parses its config.
    readAhead(opened.cache.readAhead);
    return opened.cache;
  });
  if (!loaded) {
    await deps.early?.close();
    return EXIT_CONFIG;
  }
  const logger = createLogger(loaded.config.log.level, deps.stdout);
  for (const warning of loaded.warnings) logger.warn({ config: loaded.config.configPath }, warning);
  if (cacheProblem !== null) logger.info({ cacheDir, problem: cacheProblem }, 'the start cache was not used; this start parsed everything');
  const { startCache } = loaded;
  // The queue sizes' file, read while the config is parsed. Not the wallets file: tens of
  // megabytes of buffers at 100,000 wallets made V8 collect the young objects of the
  // watchlist being built for "external memory pressure", twice (~50 ms); it is read once
  // the server listens.
  const snapshotFiles = (config: Config): string[] => [config.snapshot.file];
  startCache.keepReadAhead(snapshotFiles(loaded.config));
  // The early record of the config in force, made from its files read again once it is loaded; saved with the rest.
  const keepEarly = (config: Config): Promise<void> =>
    earlyInputsOf(config, deps, overrides).then((inputs) => startCache.keepEarly(inputs === null ? null : earlyRecordOf(config, inputs)));
  let earlyKept = keepEarly(loaded.config);
  const saveStartCache = (): void =>
    void earlyKept
      .then(() => startCache.save())
      .then(
        (done) => done === 'saved' && logger.debug({ cacheDir }, 'start cache saved'),
        (err: unknown) => logger.warn({ err, cacheDir }, 'could not save the start cache (set TONWATCH_CACHE_DIR to a writable folder, or empty to keep none)'),
      );
  // The early server, taken over when it serves as this config says (the files may have changed since it was started).
  const early = deps.early != null && fitsRecord(deps.early.settings, loaded.config) ? deps.early : null;
  if (deps.early != null && early === null) {
    logger.info({ listen: loaded.config.listen }, 'the config changed while the start was answering early; its server is closed and a new one opened');
    await deps.early.close();
  }
  const daemon = createDaemon({
    early,
    config: loaded.config,
    logger,
    now: deps.now,
    wallOffset: deps.wallOffset,
    version: VERSION,
    nodeVersion: deps.nodeVersion,
    startedUp: () => {
      dropReadsAhead();
      deps.startedUp?.();
      saveStartCache();
    },
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
      // Parts of the config (its document, each watchlist file) taken unchanged from the last start, and parsed.
      startCache: cacheDir === null ? 'off' : { dir: cacheDir, ...startCache.counts },
      // Requests answered (queue sizes) and held for the daemon before it was loaded.
      early: early === null ? 'off' : early.counts,
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
      const loadDeps = { ...configLoadDeps(deps), startCache };
      try {
        const next = await loadConfig(daemon.config().configPath, loadDeps, overrides);
        for (const warning of next.warnings) logger.warn(warning);
        await daemon.applyConfig(next.config);
        startCache.keepReadAhead(snapshotFiles(next.config));
        earlyKept = keepEarly(next.config);
        saveStartCache();
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

/** What the early record of `config` is keyed on, read again now; null when a file cannot be read. */
async function earlyInputsOf(config: Config, deps: ProcessDeps, overrides: ConfigOverrides) {
  if (config.configPath === null) return null;
  try {
    const configBytes = await readWhole(config.configPath);
    const webBytes = await Promise.all((config.web?.files ?? []).map((file) => readWhole(file)));
    const webOverride = overrides.webConfigFile === undefined ? null : resolve(deps.cwd, overrides.webConfigFile);
    return { configBytes, env: deps.env, webOverride, webBytes };
  } catch {
    return null;
  }
}
