import { resolve } from 'node:path';
import { daemonConfigArg } from './cli-options.js';
import { DEFAULT_CONFIG_FILE, startCacheDir, startCacheFile } from './config/start-cache-path.js';
import { readAhead } from './snapshot/atomic-file.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The start cache file a daemon started with this command line, environment and working
 * directory opens (run.ts), or null when it opens none (another command, no cache folder).
 */
export function startCacheOf(argv: readonly string[], env: Env, cwd: string): string | null {
  return startFiles(argv, env, cwd)?.cacheFile ?? null;
}

/** The config file a daemon started so would read, and its start cache file; null when it opens no cache. */
export function startFiles(argv: readonly string[], env: Env, cwd: string): { configPath: string; cacheFile: string } | null {
  const config = daemonConfigArg(argv);
  const dir = startCacheDir(env, cwd);
  if (config === null || dir === null) return null;
  const chosen = config ?? env['TONWATCH_CONFIG'];
  const configPath = resolve(cwd, chosen !== undefined && chosen !== '' ? chosen : DEFAULT_CONFIG_FILE);
  return { configPath, cacheFile: startCacheFile(dir, configPath) };
}

/**
 * Begins reading the start cache a daemon start is about to open (8 MB at 100,000 watched
 * wallets), while the rest of the code is still being loaded: main.ts calls this before it
 * imports the CLI. Best effort: a file nobody opens is a read nobody takes, and a file
 * changed since is read again (readIfPresent checks it is the same file). True when a read
 * was begun: a daemon start with a start cache.
 */
export function prefetchStart(argv: readonly string[], env: Env, cwd: string): boolean {
  const file = startCacheOf(argv, env, cwd);
  if (file !== null) readAhead([file]);
  return file !== null;
}
