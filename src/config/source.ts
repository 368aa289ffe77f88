import { access } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Config } from '../domain/config.js';
import { readWhole } from '../snapshot/atomic-file.js';
import { kindOf } from '../upstream/kinds.js';
import { loadConfig, resolveConfigPath, type ConfigLoadDeps, type ConfigOverrides, type LoadedConfig } from './load.js';
import type { ConfigPiece } from './piece.js';
import { watchFiles } from './watch.js';

/**
 * Where the daemon's config comes from: the file the command line and environment name,
 * loaded and validated whole each time it is asked for, and the files it was read from
 * watched for changes.
 */
export interface ConfigSource {
  /** Loads and validates the config; throws ConfigError listing every problem. */
  load(): Promise<LoadedConfig>;
  /** Calls `changed` (debounced) when a file `config` was read from changes; replaces the last watch. */
  watch(config: Config, changed: () => void, logger: Logger): void;
  /** Stops watching. */
  close(): void;
}

export interface SourceDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** The features' keys of the file. */
  readonly pieces: readonly ConfigPiece[];
}

export function configLoadDeps(deps: SourceDeps): ConfigLoadDeps {
  return {
    env: deps.env,
    cwd: deps.cwd,
    pieces: deps.pieces,
    readFile: async (path) => (await readWhole(path)).toString('utf8'),
    readBytes: readWhole,
    fileExists: (path) =>
      access(path).then(
        () => true,
        () => false,
      ),
  };
}

/** The source of `--config` (else $TONWATCH_CONFIG, else ./tonwatch.yml if present, else the built-in defaults). */
export async function createConfigSource(explicitPath: string | undefined, overrides: ConfigOverrides, deps: SourceDeps): Promise<ConfigSource> {
  const loadDeps = configLoadDeps(deps);
  const path = await resolveConfigPath(explicitPath, loadDeps);
  let watcher: { close(): void } | null = null;
  return {
    load: () => loadConfig(path, loadDeps, overrides),
    watch(config, changed, logger) {
      watcher?.close();
      watcher = watchFiles(filesOf(config), changed, logger);
    },
    close() {
      watcher?.close();
      watcher = null;
    },
  };
}

/** Every file a config was read from: a change to any reloads it. */
function filesOf(config: Config): string[] {
  return [
    ...(config.configPath ? [config.configPath] : []),
    ...config.watchlistFiles,
    ...(config.web?.files ?? []),
    ...config.upstreams.flatMap((u) => kindOf(u).files(u)),
  ];
}
