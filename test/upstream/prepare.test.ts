import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * UpstreamClient.prepare, in a fresh Node process on the built code (this process has
 * every library loaded already): it loads what each upstream kind's first request needs,
 * and opens no connection.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT = new URL('../../dist/upstream/client.js', import.meta.url).href;

interface Loaded {
  readonly before: string[];
  readonly afterMaking: string[];
  readonly afterPrepare: string[];
  readonly connections: number;
}

/** Makes a client of one upstream of `kind` pointed at a listening socket, prepares it, and reports what was loaded when. */
function prepareIn(kind: 'http' | 'liteserver'): Loaded {
  if (!existsSync(fileURLToPath(CLIENT))) throw new Error('dist/ is missing: run "npm run build" (npm test does)');
  const script = `
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
const require = createRequire(process.cwd() + '/');
const loaded = () => [...new Set(Object.keys(require.cache).flatMap((k) => /node_modules\\/(undici|@ton\\/core)\\//.exec(k)?.[1] ?? []))].sort();
let connections = 0;
const server = createServer((socket) => { connections += 1; socket.destroy(); });
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
const before = loaded();
const { createUpstreamClient } = await import(${JSON.stringify(CLIENT)});
const { pino } = await import('pino');
const upstream = ${JSON.stringify(kind)} === 'http'
  ? { kind: 'http', name: 'h', url: 'http://127.0.0.1:' + port, rps: 1, timeoutMs: 1000 }
  : { kind: 'liteserver', name: 'l', rps: 1, timeoutMs: 1000, liteservers: [{ host: '127.0.0.1', port, publicKey: Buffer.alloc(32, 7).toString('base64') }] };
const client = createUpstreamClient({
  upstreams: [upstream], retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 }, logger: pino({ level: 'silent' }),
  observer: { request() {}, skipped() {} }, now: Date.now, userAgent: 'test',
});
const afterMaking = loaded();
await client.prepare();
const afterPrepare = loaded();
await new Promise((resolve) => setTimeout(resolve, 100));
client.close();
server.close();
process.stdout.write(JSON.stringify({ before, afterMaking, afterPrepare, connections }));
`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
  if (run.status !== 0) throw new Error(`the prepare script failed (${run.status}):\n${run.stderr}`);
  return JSON.parse(run.stdout) as Loaded;
}

describe('UpstreamClient.prepare', () => {
  it('loads undici for an HTTP upstream (its addresses need no @ton/core), which making the client does not, and connects to nothing', () => {
    const loaded = prepareIn('http');
    expect(loaded.before).toEqual([]);
    expect(loaded.afterMaking).toEqual([]);
    expect(loaded.afterPrepare).toEqual(['undici']);
    expect(loaded.connections).toBe(0);
  });

  it('loads the liteserver module and @ton/core for a liteserver upstream, and connects to nothing', () => {
    const loaded = prepareIn('liteserver');
    expect(loaded.afterMaking).toEqual([]);
    expect(loaded.afterPrepare).toContain('@ton/core');
    expect(loaded.connections).toBe(0);
  });
});
