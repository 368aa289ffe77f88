import { expect } from 'vitest';
import { describeConfig, loadConfig } from '../../src/config/load.js';
import { ConfigError, type ConfigProblem } from '../../src/config/problems.js';
import type { Config } from '../../src/domain/config.js';
import { CONFIG_PIECES } from '../../src/features/index.js';

/** Loads a config from an in-memory document through the real loader. */
export async function configFrom(document: string, files: Record<string, string> = {}, env: Record<string, string> = {}): Promise<Config> {
  const all: Record<string, string> = { '/cfg/tonwatch.yml': document, ...files };
  const { config } = await loadConfig('/cfg/tonwatch.yml', {
    env,
    cwd: '/cfg',
    pieces: CONFIG_PIECES,
    readFile: async (path) => {
      const text = all[path];
      if (text === undefined) throw new Error(`ENOENT: ${path}`);
      return text;
    },
    fileExists: async (path) => path in all,
  });
  return config;
}

/** The problems the real loader reports for a document (it must refuse it). */
export async function problemsOf(document: string, files: Record<string, string> = {}, env: Record<string, string> = {}): Promise<readonly ConfigProblem[]> {
  try {
    await configFrom(document, files, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

/** check-config's text of a config, with every feature's keys. */
export function describedConfig(config: Config): Promise<string> {
  return describeConfig(config, CONFIG_PIECES);
}
