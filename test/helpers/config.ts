import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/domain/config.js';

/** Loads a config from an in-memory document through the real loader. */
export async function configFrom(document: string, files: Record<string, string> = {}, env: Record<string, string> = {}): Promise<Config> {
  const all: Record<string, string> = { '/cfg/tonwatch.yml': document, ...files };
  const { config } = await loadConfig('/cfg/tonwatch.yml', {
    env,
    cwd: '/cfg',
    readFile: async (path) => {
      const text = all[path];
      if (text === undefined) throw new Error(`ENOENT: ${path}`);
      return text;
    },
    fileExists: async (path) => path in all,
  });
  return config;
}
