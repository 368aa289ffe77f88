import { parseArgs } from 'node:util';

/** The command line's options, for every command (cli.ts). */
export const OPTIONS = {
  config: { type: 'string', short: 'c' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  host: { type: 'string' },
  port: { type: 'string', short: 'p' },
  scenario: { type: 'string' },
  seed: { type: 'string' },
  style: { type: 'string' },
  rps: { type: 'string' },
  accounts: { type: 'string' },
  'block-ms': { type: 'string' },
  'max-url-bytes': { type: 'string' },
  testnet: { type: 'boolean' },
  'web.config.file': { type: 'string' },
  lag: { type: 'string' },
  'indexer-lag': { type: 'string' },
  'liteserver-port': { type: 'string' },
  'liteserver-without-queue-sizes': { type: 'boolean' },
  liteserver: { type: 'boolean' },
} as const;

/**
 * The `--config` of a command line that runs the daemon (no command given): the path as
 * written, undefined when none is given, or null for another command or a command line
 * the CLI will refuse.
 */
export function daemonConfigArg(argv: readonly string[]): string | undefined | null {
  const args = daemonArgs(argv);
  return args === null ? null : args.config;
}

/** The `--config` and `--web.config.file` of a command line that runs the daemon, as written; null for another command line. */
export function daemonArgs(argv: readonly string[]): { config: string | undefined; webConfigFile: string | undefined } | null {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
    if (positionals.length > 0 || values.help === true || values.version === true) return null;
    return { config: values.config, webConfigFile: values['web.config.file'] };
  } catch {
    return null;
  }
}
