// Bundles tsc's output (dist/main.js and what it imports, dependencies included) into
// dist/tonwatch.js, the file `tonwatch` runs. Node 20 spends more of a start loading a
// hundred small modules than running them: resolving, reading and compiling each one.
// One file, with what is loaded later (undici, the simulator, the liteserver client,
// bcryptjs) in chunks beside it, starts in about half the time. The entry itself is
// small: main.ts begins reading the start cache, then imports the CLI, whose code is one
// chunk. Everything stays at the root of dist/, where assets.ts finds the files shipped
// beside the code.
import { readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const CHUNK = /^tonwatch(-.+)?\.js(\.map)?$/;

for (const name of readdirSync(dist)) if (CHUNK.test(name)) rmSync(dist + name);

await build({
  entryPoints: { tonwatch: `${dist}main.js` },
  outdir: dist,
  chunkNames: 'tonwatch-[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Dependencies written as CommonJS call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __tonwatchRequire } from 'node:module'; const require = __tonwatchRequire(import.meta.url);" },
  // @ton/core (with @ton/crypto) stays in node_modules, one copy for the whole process:
  // ton/address.ts loads it through createRequire when an address needs it, and the
  // liteserver client and the simulator import it; a bundled second copy would make the
  // Cell and Address of one fail instanceof checks of the other.
  external: ['@ton/core', '@ton/crypto'],
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
