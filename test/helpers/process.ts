import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer as createNetServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The built CLI; `npm test` builds it first. */
export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface RunningProcess {
  readonly child: ChildProcess;
  /** Everything printed so far, stdout and stderr interleaved by line. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output, waiting up to timeoutMs. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends `signal` and resolves with the exit code and how long the exit took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
}

export function startTonwatch(args: readonly string[], env: Record<string, string> = {}): RunningProcess {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" (npm test does)`);
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => text,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = text.match(pattern);
          if (match) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern} in:\n${text.slice(-3000)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      const started = Date.now();
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const code = await exited;
      return { code, ms: Date.now() - started };
    },
  };
}

/** Polls `probe` until it returns a value other than undefined, or fails after timeoutMs. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
}

/**
 * Path of a tool such as promtool. Missing under CI=true is a failure (CI installs it);
 * elsewhere the caller skips, saying why.
 */
export function findTool(name: string): string | null {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const path = found.status === 0 ? found.stdout.trim() : '';
  if (path !== '') return path;
  if (process.env['CI']) throw new Error(`${name} is required under CI=true (.ci/run installs it from Debian's packages)`);
  return null;
}

/** A TCP port free on 127.0.0.1 right now (for processes that must be told their port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `tonwatch simulate` on a free loopback port, with `args`; resolves once it listens. */
export async function startSimProcess(args: readonly string[]): Promise<{ proc: RunningProcess; url: string }> {
  const proc = startTonwatch(['simulate', '--port', '0', ...args]);
  const [, url = ''] = await proc.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  return { proc, url };
}

/** The daemon on `config` (written to `dir`/tonwatch.yml, paths relative to it), with `env`; resolves once it listens. */
export async function startDaemonProcess(dir: string, config: string, env: Record<string, string> = {}): Promise<{ proc: RunningProcess; url: string }> {
  await writeFile(join(dir, 'tonwatch.yml'), config);
  const proc = startTonwatch(['--config', join(dir, 'tonwatch.yml')], env);
  const [, url = ''] = await proc.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
  return { proc, url };
}

/** Resolves once `url`/readyz answers 200. */
export function ready(url: string, timeoutMs = 20_000): Promise<true> {
  return eventually(async () => ((await fetch(`${url}/readyz`)).status === 200 ? true : undefined), timeoutMs, 'readiness');
}

/**
 * Runs `script` (an ES module) in a fresh Node process with the collector at hand
 * (`globalThis.gc`), on the built code, and returns the JSON it prints last: a heap
 * measured there holds nothing of the test runner's.
 */
export function measuredInFreshNode<T>(script: string): T {
  if (!existsSync(MAIN)) throw new Error('dist/ is missing: run "npm run build" (npm test does)');
  const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as T;
}
