import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from 'pino';

/**
 * Calls `onChange` (debounced) when any of `files` changes. Watches each file's folder, not
 * the file: editors and config-management tools replace files by rename, which a watch on
 * the old inode would miss, and Kubernetes swaps a `..data` symlink beside them.
 */
export function watchFiles(files: readonly string[], onChange: () => void, logger: Logger, debounceMs = 300): { close(): void } {
  const byDir = new Map<string, Set<string>>();
  for (const file of files) {
    const names = byDir.get(dirname(file)) ?? new Set<string>();
    names.add(basename(file));
    byDir.set(dirname(file), names);
  }
  let timer: NodeJS.Timeout | undefined;
  const trigger = (): void => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
    timer.unref();
  };
  const watchers: FSWatcher[] = [];
  for (const [dir, names] of byDir) {
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => {
        // Kubernetes updates a mounted ConfigMap or Secret by swapping its `..data` symlink:
        // the watched names stay, only the `..`-names change.
        if (name === null || names.has(name.toString()) || name.toString().startsWith('..')) trigger();
      });
      watcher.on('error', (err) => logger.warn({ err, dir }, 'file watch failed; SIGHUP still reloads'));
      watchers.push(watcher);
    } catch (err) {
      logger.warn({ err, dir }, 'cannot watch folder for config changes; SIGHUP still reloads');
    }
  }
  return {
    close() {
      clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
