import { parse as parseYaml } from 'yaml';
import type { ConfigProblem } from './problems.js';

/**
 * `${NAME}` inside any string of the config is replaced by the environment variable NAME
 * (`${NAME:-fallback}` gives a default; `$${` writes a literal `${`). A missing variable is
 * a config problem, reported with its path. A string that is exactly one reference takes
 * the variable's YAML type, so `port: ${PORT}` gives a number.
 */

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const WHOLE_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}$/;

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
    const typed: unknown = safeScalar(resolved);
    return typeof typed === 'number' || typeof typed === 'boolean' ? typed : resolved;
  }
  return text.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
    if (name === undefined) return '${'; // the $${ escape
    return lookup(name, fallback) ?? match;
  });
}

function safeScalar(text: string): unknown {
  try {
    return parseYaml(text);
  } catch {
    return text;
  }
}
