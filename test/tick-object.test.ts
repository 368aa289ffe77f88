import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * keepTickObject keeps process.nextTick on V8's fast path across full collections
 * (src/app/tick-object.ts says why). Checked on the inline caches themselves, not on time: in a
 * fresh Node process on the built code, nextTick runs, a full collection comes before
 * anything keeps its tick objects' maps, nextTick runs again, and V8 prints the state of the
 * caches of the literal that builds a tick object (%DebugPrint of the function lists each
 * feedback slot: MONOMORPHIC, or MEGAMORPHIC once it has seen two maps).
 */

const MODULE = new URL('../dist/app/tick-object.js', import.meta.url).href;

function literalCacheStates(keep: boolean): string[] {
  if (!existsSync(fileURLToPath(MODULE))) throw new Error('dist/ is missing: run "npm run build" (npm test does)');
  const script = `
const { keepTickObject } = await import(${JSON.stringify(MODULE)});
const kept = ${keep ? 'keepTickObject()' : 'null'};
const turn = () => new Promise((resolve) => setImmediate(resolve));
const step = () => {};
await turn();
for (let i = 0; i < 50; i += 1) process.nextTick(step);
await turn();
globalThis.gc();
globalThis.gc();
for (let i = 0; i < 50; i += 1) process.nextTick(step);
await turn();
%DebugPrint(process.nextTick);
if (${keep} && kept.object === undefined) throw new Error('no tick object kept');
`;
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return [...run.stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1] ?? '');
}

describe('keepTickObject', () => {
  it('keeps the caches of the tick-object literal monomorphic across full collections', () => {
    const states = literalCacheStates(true);
    // callback, args, and the two symbol-keyed ids.
    expect(states).toHaveLength(4);
    expect(states.every((state) => state === 'MONOMORPHIC')).toBe(true);
  });

  it('is needed: without it, a full collection turns them megamorphic (if V8 stops doing this, the workaround can go)', () => {
    expect(literalCacheStates(false)).toContain('MEGAMORPHIC');
  });

  it('is what main.ts does first, before it runs the command', () => {
    const main = readFileSync(new URL('../src/main.ts', import.meta.url), 'utf8');
    const kept = main.indexOf('= keepTickObject();');
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(main.indexOf('runCli('));
  });
});
