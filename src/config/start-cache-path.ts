import { createHash } from 'node:crypto';
import { isAbsolute, join, resolve } from 'node:path';

/** The config file a daemon reads when neither --config nor $TONWATCH_CONFIG names one (if it exists). */
export const DEFAULT_CONFIG_FILE = 'tonwatch.yml';

/**
 * Where what a start parses is kept for the next (start-cache.ts): $TONWATCH_CACHE_DIR
 * (empty: nowhere), else systemd's $CACHE_DIRECTORY, else $XDG_CACHE_HOME/tonwatch, else
 * ~/.cache/tonwatch; null when none is known.
 */
export function startCacheDir(env: Readonly<Record<string, string | undefined>>, cwd: string): string | null {
  const chosen = env['TONWATCH_CACHE_DIR'];
  if (chosen !== undefined) return chosen === '' ? null : resolve(cwd, chosen);
  const systemd = env['CACHE_DIRECTORY']?.split(':')[0];
  if (systemd) return systemd;
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg && isAbsolute(xdg)) return join(xdg, 'tonwatch');
  const home = env['HOME'];
  return home && isAbsolute(home) ? join(home, '.cache', 'tonwatch') : null;
}

/** The cache file of a config file: one per config path, in `dir`. */
export function startCacheFile(dir: string, configPath: string): string {
  return join(dir, `${createHash('sha256').update(configPath).digest('hex').slice(0, 32)}.cache`);
}
