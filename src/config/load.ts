import { dirname, isAbsolute, resolve } from 'node:path';
import type * as z from 'zod';
import { interpolateEnv } from './interpolate.js';
import { ConfigError, type ConfigProblem } from './problems.js';
import { configSchema } from './schema.js';
import { shownUrl, type Config, type UpstreamSettings } from '../domain/config.js';
import { describeWebConfig, loadWebConfig } from './web-config.js';
import { kindOf } from '../upstream/kinds.js';
import type { ConfigPiece } from './piece.js';
import { buildWatchlist, parseWatchlistFile, type WatchlistSource } from './watchlist.js';
import { parse as parseYaml, stringify as toYaml, YAMLParseError } from 'yaml';

export interface LoadedConfig {
  readonly config: Config;
  /** Non-fatal findings (merged duplicates), to be logged. */
  readonly warnings: readonly string[];
}

export interface ConfigLoadDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly readFile: (path: string) => Promise<string>;
  /** The file's bytes (watchlist files are parsed from them); default: readFile's text, encoded. */
  readonly readBytes?: (path: string) => Promise<Uint8Array>;
  readonly fileExists: (path: string) => Promise<boolean>;
  /** The features' keys of the file (features/index.ts gives them to the composition). */
  readonly pieces: readonly ConfigPiece[];
}

/** What the command line says over the file. */
export interface ConfigOverrides {
  /** --web.config.file, relative to the working directory. */
  readonly webConfigFile?: string | undefined;
}

/** The config file a daemon reads when neither --config nor $TONWATCH_CONFIG names one (if it exists). */
export const DEFAULT_CONFIG_FILE = 'tonwatch.yml';

/**
 * Which file to load: `--config`, else `$TONWATCH_CONFIG`, else `./tonwatch.yml` if it
 * exists, else none (built-in defaults).
 */
export async function resolveConfigPath(explicit: string | undefined, deps: ConfigLoadDeps): Promise<string | null> {
  const chosen = explicit ?? deps.env['TONWATCH_CONFIG'];
  if (chosen !== undefined && chosen !== '') return resolve(deps.cwd, chosen);
  const fallback = resolve(deps.cwd, DEFAULT_CONFIG_FILE);
  return (await deps.fileExists(fallback)) ? fallback : null;
}

/** Loads, interpolates and validates a config; throws ConfigError listing every problem. */
export async function loadConfig(path: string | null, deps: ConfigLoadDeps, overrides: ConfigOverrides = {}): Promise<LoadedConfig> {
  const source = path ?? '(built-in defaults)';
  let document: unknown = {};
  if (path !== null) {
    let text: string;
    try {
      text = await deps.readFile(path);
    } catch (cause) {
      throw new ConfigError(source, [{ path: '', message: `cannot read: ${errorMessage(cause)}` }]);
    }
    try {
      document = parseYaml(text) ?? {};
    } catch (cause) {
      const where = cause instanceof YAMLParseError && cause.linePos ? `line ${cause.linePos[0].line}` : '';
      throw new ConfigError(source, [{ path: where, message: `not valid YAML or JSON: ${errorMessage(cause)}` }]);
    }
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new ConfigError(source, [{ path: '', message: 'the top level must be a mapping of keys' }]);
  }
  const problems: ConfigProblem[] = [];
  const interpolated = interpolateEnv(document, deps.env, problems);
  const parsed = configSchema(deps.pieces).safeParse(interpolated);
  if (!parsed.success) problems.push(...zodProblems(parsed.error));
  const base = path === null ? deps.cwd : dirname(path);
  // The web config is read even when the main file has problems: all of them are listed at once.
  const webConfigFile = webConfigPath(overrides, interpolated, base, deps.cwd);
  const web = webConfigFile === null ? { web: null, problems: [] } : await loadWebConfig(webConfigFile, deps.readFile);
  problems.push(...web.problems);
  if (!parsed.success || problems.length > 0) throw new ConfigError(source, problems);

  const file = parsed.data;
  const fileSettings = file.watchlistFiles.map((f) => (typeof f === 'string' ? { file: f } : f));
  const watchlistFiles = fileSettings.map(({ file: f }) => (isAbsolute(f) ? f : resolve(base, f)));
  const sources: WatchlistSource[] = file.watchlist.map((entry, i) => ({ entry, origin: `watchlist.${i}` }));
  for (const [i, listFile] of watchlistFiles.entries()) {
    let bytes: Uint8Array;
    try {
      bytes = deps.readBytes ? await deps.readBytes(listFile) : Buffer.from(await deps.readFile(listFile), 'utf8');
    } catch (cause) {
      problems.push({ path: `watchlistFiles.${i}`, message: `cannot read ${listFile}: ${errorMessage(cause)}` });
      continue;
    }
    const { file: _file, ...extras } = fileSettings[i] ?? { file: listFile };
    sources.push(parseWatchlistFile(listFile, bytes, problems, extras));
  }
  const upstreams: UpstreamSettings[] = [];
  for (const [i, upstream] of file.upstreams.entries()) {
    const kind = kindOf(upstream);
    if (kind.resolve === undefined) {
      upstreams.push(upstream);
      continue;
    }
    const resolved = await kind.resolve(upstream, { base, readFile: deps.readFile, path: `upstreams.${i}` });
    problems.push(...resolved.problems);
    upstreams.push(resolved.settings);
  }
  if (problems.length > 0) throw new ConfigError(source, problems);

  const warnings: string[] = [];
  // Each watched wallet is frozen as it is made: only the list itself is left to freeze (100,000 entries need no walk).
  const watchlist = Object.freeze(buildWatchlist(sources, warnings));
  // The features' keys and schedules are in `file` too (the schema was composed of their pieces); its static type knows the core's only.
  const config = deepFreeze({
    ...file,
    upstreams,
    snapshot: { ...file.snapshot, file: isAbsolute(file.snapshot.file) ? file.snapshot.file : resolve(base, file.snapshot.file) },
    watchlistFiles,
    configPath: path,
    watchlistEntries: file.watchlist,
    watchlist,
    web: web.web,
  } as unknown as Config);
  return { config, warnings };
}

/** The effective config as YAML, with secrets redacted, for `check-config`; each feature's keys as its piece prints them. */
export async function describeConfig(config: Config, pieces: readonly ConfigPiece[]): Promise<string> {
  await Promise.resolve();
  const { watchlist, watchlistEntries, configPath, web, ...rest } = config;
  const printable = {
    ...rest,
    web: web === null ? 'none (plain HTTP, no authentication)' : describeWebConfig(web),
    upstreams: config.upstreams.map((u) => kindOf(u).printable(u)),
    watchlist: watchlistEntries,
    cluster: config.cluster === null ? 'none (one process)' : { ...config.cluster, redis: shownUrl(config.cluster.redis) },
    ...(Object.assign({}, ...pieces.map((piece) => piece.printable?.(config) ?? {})) as Record<string, unknown>),
  };
  return `# source: ${configPath ?? '(built-in defaults)'}\n# watched wallets after merging files and duplicates: ${watchlist.length}\n${toYaml(printable)}`;
}

/** The web config file: --web.config.file (relative to the working directory), else listen.webConfigFile (relative to the config file). */
function webConfigPath(overrides: ConfigOverrides, document: unknown, base: string, cwd: string): string | null {
  if (overrides.webConfigFile !== undefined) return resolve(cwd, overrides.webConfigFile);
  const listen = (document as { listen?: unknown }).listen;
  const file = typeof listen === 'object' && listen !== null ? (listen as { webConfigFile?: unknown }).webConfigFile : undefined;
  if (typeof file !== 'string' || file === '') return null;
  return isAbsolute(file) ? file : resolve(base, file);
}

function zodProblems(error: z.ZodError): ConfigProblem[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message:
      issue.code === 'unrecognized_keys'
        ? `unknown key${issue.keys.length === 1 ? '' : 's'}: ${issue.keys.join(', ')}`
        : // A record's key refused by its key schema: say why, not only that.
          issue.code === 'invalid_key'
          ? `invalid key: ${issue.issues[0]?.message ?? issue.message}`
          : issue.message,
  }));
}

function errorMessage(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    // Address objects from @ton/core are left alone: freezing foreign classes is not ours to do.
    if (value.constructor !== Object && !Array.isArray(value)) return value;
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
