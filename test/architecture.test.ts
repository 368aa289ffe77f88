import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The shape of src/ (README, "How it fits together"): rooms, the features' folders, and who
 * may import whom. Read from the sources' import lines, type-only imports included.
 */

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const README = fileURLToPath(new URL('../README.md', import.meta.url));

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

/** `serve/routes.ts` → `serve/`; `main.ts` → `main.ts`. */
const roomOf = (path: string): string => (path.includes('/') ? `${path.split('/')[0] ?? ''}/` : path);
/** `features/wallets/poll.ts` → `wallets`; null for a file outside a feature's folder. */
const featureOf = (path: string): string | null => {
  const parts = path.split('/');
  return parts[0] === 'features' && parts.length > 2 ? (parts[1] ?? null) : null;
};

function violations(rule: (from: string, to: string) => boolean): string[] {
  const found: string[] = [];
  for (const [from, targets] of IMPORTS) for (const to of targets) if (rule(from, to)) found.push(`${from} → ${to}`);
  return found;
}

/** The README's room table: room → the rooms it says the room imports. */
function roomTable(): Map<string, Set<string>> {
  const text = readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf('## How it fits together'), text.indexOf('\n## ', text.indexOf('## How it fits together') + 1));
  const table = new Map<string, Set<string>>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    // | `room` | job | imports |: the rows of the three-column table whose first cell is a room.
    if (cells.length !== 5 || !/^`[a-z-]+(\/|\.ts)`$/.test(cells[1] ?? '')) continue;
    const imports = cells[3] ?? '';
    if (!/`/.test(imports) && imports !== 'nothing of `src/`' && imports !== 'nothing of src/') continue;
    table.set(
      (cells[1] ?? '').slice(1, -1),
      new Set([...imports.matchAll(/`([a-z-]+\/|[a-z-]+\.ts)`/g)].map((m) => m[1] ?? '').filter((room) => room !== 'src/')),
    );
  }
  return table;
}

/** The files of each import circle (strongly connected component of more than one file). */
function importCircles(): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const to of IMPORTS.get(file) ?? []) {
      if (!IMPORTS.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const circle: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      circle.push(member);
    } while (member !== file);
    if (circle.length > 1) circles.push(circle.sort());
  };
  for (const file of IMPORTS.keys()) if (!index.has(file)) visit(file);
  return circles;
}

/** Every file `from` reaches by imports, itself excluded. */
function reachable(from: string): Set<string> {
  const seen = new Set<string>();
  const next = [...(IMPORTS.get(from) ?? [])];
  while (next.length > 0) {
    const file = next.pop() ?? '';
    if (seen.has(file)) continue;
    seen.add(file);
    next.push(...(IMPORTS.get(file) ?? []));
  }
  return seen;
}

describe('architecture', () => {
  it('reads a plausible import graph', () => {
    expect(IMPORTS.size).toBeGreaterThan(100);
    expect(IMPORTS.get('app/server.ts')).toContain('serve/routes.ts');
  });

  it('src/ holds main.ts and rooms, no loose file', () => {
    expect([...IMPORTS.keys()].filter((path) => !path.includes('/'))).toEqual(['main.ts']);
  });

  it("every import between rooms is in the README's table, and every import the table names is in the code", () => {
    const table = roomTable();
    const rooms = new Set([...IMPORTS.keys()].map(roomOf));
    expect([...table.keys()].sort()).toEqual([...rooms].sort());
    const actual = new Map<string, Set<string>>([...rooms].map((room) => [room, new Set<string>()]));
    for (const [from, targets] of IMPORTS) for (const to of targets) if (roomOf(from) !== roomOf(to)) actual.get(roomOf(from))?.add(roomOf(to));
    for (const room of rooms) expect([...(actual.get(room) ?? [])].sort(), room).toEqual([...(table.get(room) ?? [])].sort());
  });

  it('has no import circle between files', () => {
    expect(importCircles()).toEqual([]);
  });

  it('finds a circle when there is one (the check itself)', () => {
    const graph = IMPORTS as Map<string, readonly string[]>;
    const before = graph.get('log/episodes.ts');
    graph.set('log/episodes.ts', [...(before ?? []), 'log/logger.ts']);
    const logger = graph.get('log/logger.ts');
    graph.set('log/logger.ts', [...(logger ?? []), 'log/episodes.ts']);
    try {
      expect(importCircles()).toEqual([['log/episodes.ts', 'log/logger.ts']]);
    } finally {
      graph.set('log/episodes.ts', before ?? []);
      graph.set('log/logger.ts', logger ?? []);
    }
  });

  it('metrics/ reaches upstream/ by no path', () => {
    const reaching = [...IMPORTS.keys()].filter((file) => roomOf(file) === 'metrics/' && [...reachable(file)].some((to) => roomOf(to) === 'upstream/'));
    expect(reaching).toEqual([]);
  });

  it('no feature imports another feature', () => {
    expect(
      violations((from, to) => {
        const [mine, theirs] = [featureOf(from), featureOf(to)];
        return mine !== null && theirs !== null && mine !== theirs;
      }),
    ).toEqual([]);
  });

  it('the core names no feature: outside features/, only app/ imports them, and only their list and shape', () => {
    const shape = new Set(['features/index.ts', 'features/feature.ts', 'features/provisions.ts']);
    expect(violations((from, to) => roomOf(from) !== 'features/' && roomOf(to) === 'features/' && (roomOf(from) !== 'app/' || !shape.has(to)))).toEqual([]);
    // Nor does it spell a feature's query: what is polled is the features' to say.
    const core = ['app/', 'serve/', 'metrics/', 'schedule/', 'snapshot/', 'cluster/', 'config/'];
    const naming = [...IMPORTS.keys()].filter(
      (file) =>
        core.includes(roomOf(file)) && /'(queue_sizes|wallets|jettons|jetton_wallets|read_through|lag_check)'/.test(readFileSync(join(SRC, file), 'utf8')),
    );
    expect(naming).toEqual([]);
  });

  it('every folder of features/ is a feature on the list, declared in its index.ts', () => {
    const folders = readdirSync(join(SRC, 'features'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `features/${entry.name}/index.ts`);
    expect([...(IMPORTS.get('features/index.ts') ?? [])].filter((to) => featureOf(to) !== null).sort()).toEqual(folders.sort());
  });

  it('domain/ is a leaf: it imports nothing of src/ outside itself', () => {
    expect(violations((from, to) => roomOf(from) === 'domain/' && roomOf(to) !== 'domain/')).toEqual([]);
  });

  it('features/ never load the config: they declare their piece of it', () => {
    expect(violations((from, to) => roomOf(from) === 'features/' && (to === 'config/load.ts' || to === 'config/source.ts'))).toEqual([]);
  });

  it('files shipped beside the code are found from app/assets.ts, or by a feature in its own folder', () => {
    const lookups = sourceFiles(SRC).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/new URL\('([^']*)', import\.meta\.url\)/g)].map((m) => [relative(SRC, file), m[1] ?? ''] as const),
    );
    expect(lookups.length).toBeGreaterThan(1);
    expect(lookups.filter(([file, url]) => file !== 'app/assets.ts' && !(featureOf(file) !== null && /^\.\/[^/]+$/.test(url)))).toEqual([]);
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

  it("one module knows the upstream kinds: no file but a kind's own compares a kind", () => {
    const comparing = sourceFiles(SRC).filter((file) => /\.kind [!=]== '(http|liteserver)'/.test(readFileSync(file, 'utf8')));
    expect(comparing.map((file) => relative(SRC, file))).toEqual([]);
  });

  it('the status page script served to browsers imports nothing at run time', () => {
    const text = readFileSync(join(SRC, 'features/status-page/client.ts'), 'utf8');
    expect(text.match(/^import (?!type )/gm)).toBeNull();
  });

  it('keeps every line of src/ within 160 characters, and every file under 250 lines', () => {
    const files = sourceFiles(SRC).map((file) => [relative(SRC, file), readFileSync(file, 'utf8').split('\n')] as const);
    expect(files.flatMap(([file, lines]) => lines.flatMap((line, i) => (line.length > 160 ? [`${file}:${i + 1}`] : [])))).toEqual([]);
    expect(files.filter(([, lines]) => lines.length - 1 > 250).map(([file, lines]) => `${file}: ${lines.length - 1}`)).toEqual([]);
  });

  it('only app/ and config/ import the config loader', () => {
    expect(violations((from, to) => to === 'config/load.ts' && roomOf(from) !== 'app/' && roomOf(from) !== 'config/')).toEqual([]);
  });
});
