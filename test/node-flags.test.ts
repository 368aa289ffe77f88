import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The Node flags tonwatch runs with are written in several places: the bin's shebang
 * (src/main.ts), the npm scripts, the Docker image's entrypoint and the README. The
 * benchmarks read the built bin's shebang. They must all say the same, or what is measured
 * is not what ships.
 */

const read = (path: string): string => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

function shebangFlags(): string[] {
  const first = read('src/main.ts').split('\n', 1)[0] ?? '';
  const match = /^#!\/usr\/bin\/env -S node((?: --[\w-]+(?:=\S+)?)*)$/.exec(first);
  if (match === null) throw new Error(`src/main.ts does not start with "#!/usr/bin/env -S node [--flags]": ${first}`);
  return (match[1] ?? '').split(' ').filter(Boolean);
}

/** The flags between `node` and `script` in a command line. */
function flagsBefore(command: string, script: string): string[] {
  const match = new RegExp(`\\bnode((?: --[\\w-]+(?:=\\S+)?)*) ${script.replace(/[.]/g, '\\.')}`).exec(command);
  if (match === null) throw new Error(`no "node … ${script}" in: ${command}`);
  return (match[1] ?? '').split(' ').filter(Boolean);
}

describe('Node flags', () => {
  const flags = shebangFlags();

  it('the shebang sets the young generation', () => {
    expect(flags.some((flag) => flag.startsWith('--max-semi-space-size='))).toBe(true);
  });

  it('npm start, npm run demo and npm run bench pass the shebang flags', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(flagsBefore(scripts['start'] ?? '', 'dist/main.js')).toEqual(flags);
    expect(flagsBefore(scripts['demo'] ?? '', 'dist/main.js')).toEqual(flags);
    expect(flagsBefore(scripts['bench'] ?? '', 'test/bench/run.mjs')).toEqual(flags);
  });

  it("the Docker image's entrypoint passes the shebang flags", () => {
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(read('Dockerfile'));
    expect(entrypoint).not.toBeNull();
    const argv = JSON.parse(entrypoint?.[1] ?? '[]') as string[];
    expect(argv).toEqual(['node', ...flags, 'dist/main.js']);
  });

  it('the README tells people who run node themselves the same flags', () => {
    expect(flagsBefore(read('README.md'), 'dist/main.js')).toEqual(flags);
  });

  it('flagsBefore finds a change in any one place', () => {
    expect(flagsBefore('npm run build && node --max-semi-space-size=16 dist/main.js', 'dist/main.js')).not.toEqual(flags);
    expect(flagsBefore('node dist/main.js demo', 'dist/main.js')).toEqual([]);
  });
});
