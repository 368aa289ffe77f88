import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { typedScalar } from '../../src/config/interpolate.js';

/** What the `yaml` library reads `text` as, kept when a number or a boolean (what `port: ${PORT}` takes). */
function byYaml(text: string): number | boolean | undefined {
  let value: unknown;
  try {
    value = parse(text);
  } catch {
    return undefined;
  }
  return typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

const EDGES = [
  '10384',
  '+12',
  '-7',
  '012',
  '0',
  '-0',
  '007',
  '1_000',
  '0x1F',
  '0X1F',
  '0x',
  '0o17',
  '0o8',
  '0b101',
  '1e3',
  '1E-3',
  '-1.5e+2',
  '.5',
  '5.',
  '-.5',
  '+.5e1',
  '1.2.3',
  '.',
  '-',
  '+',
  'e3',
  '.inf',
  '-.Inf',
  '+.INF',
  'inf',
  '.nan',
  '.NaN',
  '.NAN',
  'NaN',
  'true',
  'True',
  'TRUE',
  'tRue',
  'false',
  'False',
  'FALSE',
  'yes',
  'no',
  'on',
  'off',
  'null',
  '~',
  '',
  '  42  ',
  '\t42',
  '42\t',
  ' \t42',
  '\n\t42',
  '\n42',
  'true\t',
  '42 \t# c',
  '42 # port',
  '42# not a comment',
  '# only a comment',
  '"42"',
  "'true'",
  '[1, 2]',
  '{a: 1}',
  'a: 1',
  '- 1',
  '42\n',
  '4 2',
  '12:30',
  '1.0.0',
  '0.5s',
  'http://x:1',
];

describe('a whole-value ${NAME} takes the type YAML gives its value', () => {
  it('as the yaml library reads it, for every edge of the core schema', () => {
    for (const text of EDGES) expect(Object.is(typedScalar(text), byYaml(text)), JSON.stringify(text)).toBe(true);
  });

  it('as the yaml library reads it, for random strings of the characters that matter', () => {
    const alphabet = ['0', '1', '7', '9', '.', 'e', 'E', '+', '-', 'x', 'o', 'a', 'f', 'F', 'inf', 'nan', 'true', 'false', ' ', '#', '_', ':'];
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 5000; i += 1) {
      const text = Array.from({ length: 1 + next(6) }, () => alphabet[next(alphabet.length)]).join('');
      expect(Object.is(typedScalar(text), byYaml(text)), JSON.stringify(text)).toBe(true);
    }
  });
});
