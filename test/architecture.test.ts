import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Which rooms of src/ may import which (README, "How it fits together"). Read from the
 * sources' import lines, type-only imports included.
 */

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every file of src/ with the src/ files it imports, as paths relative to src/ (`serve/routes.ts`). */
const IMPORTS: ReadonlyMap<string, readonly string[]> = new Map(
  sourceFiles(SRC).map((file) => {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/gms), ...text.matchAll(/\bimport\('([^']+)'\)/g)].map((m) => m[1] ?? '');
    const local = specifiers.filter((s) => s.startsWith('.')).map((s) => relative(SRC, resolve(dirname(file), s)).replace(/\.js$/, '.ts'));
    return [relative(SRC, file), local];
  }),
);

const roomOf = (path: string): string => (path.includes('/') ? (path.split('/')[0] ?? '') : path);
/** The composition root: the files that wire the rooms together. */
const COMPOSITION_ROOT = new Set(['main.ts']);
const isCompositionRoot = (path: string): boolean => COMPOSITION_ROOT.has(path) || roomOf(path) === 'app';

function violations(rule: (from: string, to: string) => boolean): string[] {
  const found: string[] = [];
  for (const [from, targets] of IMPORTS) for (const to of targets) if (rule(from, to)) found.push(`${from} → ${to}`);
  return found;
}

describe('architecture', () => {
  it('reads a plausible import graph', () => {
    expect(IMPORTS.size).toBeGreaterThan(40);
    expect(IMPORTS.get('app/daemon.ts')).toContain('serve/routes.ts');
  });

  it('domain/ is a leaf: it imports nothing of src/ outside itself', () => {
    expect(violations((from, to) => roomOf(from) === 'domain' && roomOf(to) !== 'domain')).toEqual([]);
  });

  it('serve/, metrics/, snapshot/ and ton/ import neither the upstream client nor the config', () => {
    const guarded = new Set(['serve', 'metrics', 'snapshot', 'ton']);
    expect(violations((from, to) => guarded.has(roomOf(from)) && (roomOf(to) === 'upstream' || roomOf(to) === 'config'))).toEqual([]);
  });

  it('status/ (the status page) reads the snapshot and the domain, never the upstream client, the pollers or the config', () => {
    const allowed = new Set(['status', 'domain', 'snapshot', 'ton']);
    expect(violations((from, to) => roomOf(from) === 'status' && !allowed.has(roomOf(to)))).toEqual([]);
  });

  it('status/render.ts, which also runs in the browser, imports nothing at run time', () => {
    const text = readFileSync(join(SRC, 'status/render.ts'), 'utf8');
    expect(text.match(/^import (?!type )/gm)).toBeNull();
  });

  it('poll/ knows the upstream only through the domain interface', () => {
    expect(violations((from, to) => roomOf(from) === 'poll' && roomOf(to) === 'upstream')).toEqual([]);
  });

  it('files shipped beside the code are found from assets.ts alone', () => {
    const found = sourceFiles(SRC).filter((file) => /new URL\([^)]*import\.meta\.url/.test(readFileSync(file, 'utf8')));
    expect(found.map((file) => relative(SRC, file))).toEqual(['app/assets.ts']);
  });

  it('cluster/ reads the domain and the snapshot, and of the upstream room only the budget it shares; never the config, pollers, server or metrics', () => {
    const allowed = new Set(['cluster', 'domain', 'snapshot', 'log']);
    const budget = new Set(['upstream/budget.ts', 'upstream/waiters.ts']);
    expect(violations((from, to) => roomOf(from) === 'cluster' && !allowed.has(roomOf(to)) && !budget.has(to))).toEqual([]);
  });

  it('only cluster/runtime.ts loads the Redis client, and a single process never loads it: link.ts imports the runtime on demand', () => {
    const loading = sourceFiles(SRC).filter((file) => /^import (?!type )[^;]*from 'ioredis'/m.test(readFileSync(file, 'utf8')));
    expect(loading.map((file) => relative(SRC, file))).toEqual(['cluster/runtime.ts']);
    const importers = [...IMPORTS].filter(([, targets]) => targets.includes('cluster/runtime.ts')).map(([from]) => from);
    expect(importers).toEqual(['cluster/link.ts']);
    const link = readFileSync(join(SRC, 'cluster/link.ts'), 'utf8');
    expect(link).toMatch(/await import\('\.\/runtime\.js'\)/);
    expect(link).not.toMatch(/^import (?!type )[^;]*'\.\/runtime\.js'/m);
  });

  it('features/ reach the upstream only through the domain interface and the list of kinds, and never load the config', () => {
    expect(
      violations((from, to) => roomOf(from) === 'features' && ((roomOf(to) === 'upstream' && to !== 'upstream/kinds.ts') || roomOf(to) === 'config')),
    ).toEqual([]);
  });

  it("one module knows the upstream kinds: no file but a kind's own compares a kind", () => {
    const comparing = sourceFiles(SRC).filter((file) => /\.kind [!=]== '(http|liteserver)'/.test(readFileSync(file, 'utf8')));
    expect(comparing.map((file) => relative(SRC, file))).toEqual([]);
  });

  it('the daemon knows its features only through their list (features/index.ts) and their shape (features/feature.ts)', () => {
    const features = (IMPORTS.get('app/daemon.ts') ?? []).filter((to) => roomOf(to) === 'features');
    expect(features.sort()).toEqual(['features/feature.ts', 'features/index.ts']);
    // Every feature module is on the list.
    const modules = [...IMPORTS.keys()].filter((path) => roomOf(path) === 'features' && !['features/feature.ts', 'features/index.ts'].includes(path));
    expect(modules.length).toBeGreaterThanOrEqual(5);
    expect([...(IMPORTS.get('features/index.ts') ?? [])].filter((to) => to !== 'features/feature.ts').sort()).toEqual(modules.sort());
  });

  it('keeps every line of src/ within 160 characters', () => {
    const wide = sourceFiles(SRC).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (line.length > 160 ? [`${relative(SRC, file)}:${i + 1}`] : [])),
    );
    expect(wide).toEqual([]);
  });

  it('keeps every file of src/ under 250 lines, and createDaemon under 80', () => {
    const long = sourceFiles(SRC)
      .map((file) => [relative(SRC, file), readFileSync(file, 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > 250);
    expect(long).toEqual([]);
    const daemon = readFileSync(join(SRC, 'app/daemon.ts'), 'utf8');
    const start = daemon.indexOf('export function createDaemon(');
    expect(daemon.slice(start, daemon.indexOf('\n}\n', start)).split('\n').length).toBeLessThan(80);
  });

  it('only the composition root and config/ import the config loader', () => {
    expect(violations((from, to) => to === 'config/load.ts' && !isCompositionRoot(from) && roomOf(from) !== 'config')).toEqual([]);
  });
});
