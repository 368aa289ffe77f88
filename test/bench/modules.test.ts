import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The benchmarks are not run by `npm test` (they take minutes and measure time), so a name
 * one bench module imports from another and no longer finds would only show when someone
 * runs `npm run bench`. Each import between them is checked here, without running them.
 */

const BENCH = new URL('./', import.meta.url);
const IMPORT = /import\s*\{([^}]*)\}\s*from\s*'(\.\/[^']+\.mjs)'/g;

const imports = readdirSync(BENCH)
  .filter((name) => name.endsWith('.mjs'))
  .flatMap((name) =>
    [...readFileSync(new URL(name, BENCH), 'utf8').matchAll(IMPORT)].map((match) => ({
      from: name,
      module: match[2] ?? '',
      names: (match[1] ?? '')
        .split(',')
        .map((part) => part.trim().split(/\s+as\s+/)[0] ?? '')
        .filter((part) => part !== ''),
    })),
  );

describe('benchmark modules', () => {
  it('import each other by names that exist', async () => {
    expect(imports.some((i) => i.from === 'run.mjs')).toBe(true);
    for (const { from, module, names } of imports) {
      const exported = Object.keys((await import(new URL(module, BENCH).href)) as object);
      for (const name of names) expect(exported, `${from} imports ${name} from ${module}`).toContain(name);
    }
  });
});
