import { resolve } from 'node:path';
import { daemonConfigArg } from './cli-options.js';
import { DEFAULT_CONFIG_FILE, startCacheDir, startCacheFile } from './config/start-cache-path.js';
import { readAhead } from './snapshot/atomic-file.js';

/**
 * Begins reading the start cache a daemon start is about to open (8 MB at 100,000 watched
 * wallets), while the rest of the code is still being loaded: main.ts calls this before it
 * imports the CLI. Best effort: a path guessed wrong is a read nobody takes, and a file
 * changed since is read again (readIfPresent checks it is the same file).
 */
export function prefetchStart(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd: string): void {
  const config = daemonConfigArg(argv);
  if (config === null) return;
  const dir = startCacheDir(env, cwd);
  if (dir === null) return;
  const chosen = config ?? env['TONWATCH_CONFIG'];
  readAhead([startCacheFile(dir, resolve(cwd, chosen !== undefined && chosen !== '' ? chosen : DEFAULT_CONFIG_FILE))]);
}
