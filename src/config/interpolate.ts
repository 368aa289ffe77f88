import type { ConfigProblem } from './problems.js';

/**
 * `${NAME}` inside any string of the config is replaced by the environment variable NAME
 * (`${NAME:-fallback}` gives a default; `$${` writes a literal `${`). A missing variable is
 * a config problem, reported with its path. A string that is exactly one reference takes
 * the variable's YAML type, so `port: ${PORT}` gives a number.
 */

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const WHOLE_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}$/;

/**
 * Every variable name a `${NAME}` of `text` refers to, each once, sorted: what a config
 * of this text can take from the environment (a reference in a YAML comment counts too).
 */
export function referencedNames(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(REFERENCE)) if (match[1] !== undefined) names.add(match[1]);
  return [...names].sort();
}

export function interpolateEnv(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  problems: ConfigProblem[],
  path: readonly (string | number)[] = [],
): unknown {
  if (typeof value === 'string') return interpolateString(value, env, problems, path);
  if (Array.isArray(value)) return value.map((item, i) => interpolateEnv(item, env, problems, [...path, i]));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateEnv(item, env, problems, [...path, key])]));
  }
  return value;
}

function interpolateString(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  problems: ConfigProblem[],
  path: readonly (string | number)[],
): unknown {
  const lookup = (name: string, fallback: string | undefined): string | undefined => {
    const found = env[name];
    if (found !== undefined) return found;
    if (fallback !== undefined) return fallback;
    problems.push({ path: path.join('.'), message: `environment variable ${name} is not set` });
    return undefined;
  };
  const whole = WHOLE_REFERENCE.exec(text);
  if (whole) {
    const resolved = lookup(whole[1] ?? '', whole[2]);
    if (resolved === undefined) return text;
    return typedScalar(resolved) ?? resolved;
  }
  return text.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
    if (name === undefined) return '${'; // the $${ escape
    return lookup(name, fallback) ?? match;
  });
}

/**
 * The number or boolean YAML 1.2's core schema reads `text` as (the schema the `yaml`
 * library reads the config with), or undefined for anything else: a test holds the two
 * to agreeing. Here rather than a call to the library, which a start whose config comes
 * from the start cache does not load.
 */
export function typedScalar(text: string): number | boolean | undefined {
  // A plain scalar: surrounding blanks and a trailing comment are not part of it; a tab cannot start its line.
  if (/^(?:[ ]*\n)*\t/.test(text)) return undefined;
  const plain = text.replace(/(?:^|[ \t]+)#.*$/s, '').trim();
  if (/^(?:true|True|TRUE)$/.test(plain)) return true;
  if (/^(?:false|False|FALSE)$/.test(plain)) return false;
  if (/^[-+]?[0-9]+$/.test(plain)) return Number(plain);
  if (/^0o[0-7]+$/.test(plain)) return parseInt(plain.slice(2), 8);
  if (/^0x[0-9a-fA-F]+$/.test(plain)) return parseInt(plain.slice(2), 16);
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(plain)) return parseFloat(plain);
  if (/^[-+]?\.(?:inf|Inf|INF)$/.test(plain)) return plain.startsWith('-') ? -Infinity : Infinity;
  if (/^\.(?:nan|NaN|NAN)$/.test(plain)) return NaN;
  return undefined;
}
