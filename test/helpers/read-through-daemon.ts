import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDaemon } from '../../src/app/daemon.js';
import { configFrom } from './config.js';
import { createLogSink } from './log.js';

/**
 * A daemon (in process) with read-through on, against the simulator at `simUrl`, watching
 * `watched`, started and tracked (stopped after the test); resolves with its URL once
 * /readyz answers 200, or after 10 s.
 */
export async function startReadThroughDaemon(
  track: <T extends { stop(): Promise<void> }>(daemon: T) => T,
  options: {
    simUrl: string;
    rps: number;
    timeoutMs: number;
    /** The config's `schedule:` value. */
    schedule: string;
    /** The config's `readThrough:` value. */
    readThrough: string;
    watched: readonly string[];
    logLevel: 'warn' | 'error';
  },
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tonwatch-rt-'));
  const config = await configFrom(`
listen: { host: 127.0.0.1, port: 0 }
upstreams: [ { name: sim, url: "${options.simUrl}", rps: ${options.rps}, timeoutMs: ${options.timeoutMs} } ]
schedule: ${options.schedule}
lagCheck: { everySeconds: 0 }
# The chain's polls would take a third of a 2-rps budget at start, ahead of the wallet cycle: these tests measure read-through.
chain: { heads: false, validators: false }
retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 50 }
readThrough: ${options.readThrough}
snapshot: { file: "${join(dir, 'snapshot.json')}", maxAgeSeconds: 60 }
watchlist: [${options.watched.map((a) => `{ address: "${a}" }`).join(', ')}]
`);
  const daemon = track(createDaemon({ config, logger: createLogSink(options.logLevel).logger, now: () => Date.now(), version: 't', nodeVersion: 'v20' }));
  const { port } = await daemon.start();
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100 && (await fetch(`${url}/readyz`)).status !== 200; i += 1) await new Promise((r) => setTimeout(r, 100));
  return url;
}
