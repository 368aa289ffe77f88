import type * as Yaml from 'yaml';

/**
 * The `yaml` library, loaded when a YAML text is parsed or printed, not with the code: a
 * start whose config document comes from the start cache, with no web config file, does
 * without it (a quarter of the code a start would compile). It is CommonJS: bundled, its
 * functions are on the module's default export; in Node, on both.
 */
export async function loadYaml(): Promise<typeof Yaml> {
  const loaded = (await import('yaml')) as typeof Yaml & { readonly default?: typeof Yaml };
  return loaded.default ?? loaded;
}
